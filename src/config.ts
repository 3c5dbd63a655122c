import path from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const positive = z.coerce.number().int().min(1);

const schema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: positive.default(600),
  RATE_LIMIT_BURST: positive.default(60),
  DEMO_SEED: z.enum(['true', 'false']).default('true'),
  CHAT_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
  CHAT_RETRY_BASE_MS: positive.default(2000),
  CHAT_POLL_MS: positive.default(1000),
  NODE_ENV: z.string().optional(),
});

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl?: string;
  /** null keeps the embedded database in memory (tests). */
  dataDir: string | null;
  adminToken?: string;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  rateLimit: { perMinute: number; burst: number };
  demoSeed: boolean;
  /** Chat webhooks: private/loopback targets allowed (tests only), first retry delay, polling. */
  chat: { allowPrivateTargets: boolean; retryBaseMs: number; pollMs: number };
  /** Check every answer against the spec (on in tests: an off-spec answer fails its test). */
  validateResponses: boolean;
}

export class ConfigError extends Error {}

/** Reads the settings from the environment; a bad value stops the service with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid settings:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/$/, ''),
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    rateLimit: { perMinute: e.RATE_LIMIT_PER_MINUTE, burst: e.RATE_LIMIT_BURST },
    demoSeed: e.DEMO_SEED === 'true',
    chat: { allowPrivateTargets: e.CHAT_ALLOW_PRIVATE_TARGETS === 'true', retryBaseMs: e.CHAT_RETRY_BASE_MS, pollMs: e.CHAT_POLL_MS },
    validateResponses: e.NODE_ENV === 'test',
  };
}
