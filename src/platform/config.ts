import { readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { hostKey, originKey } from './hosts';
import type { FileStoreSettings } from '../infrastructure/files/store';

const port = z.coerce.number().int().min(0).max(65535);
const positive = z.coerce.number().int().min(1);
/** A comma-separated list whose every entry `check` accepts. */
const list = (check: (value: string) => string | null, what: string) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .refine((items) => items.every((item) => check(item) !== null), `must be comma-separated ${what}`)
    .default([]);

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
  ADMIN_RATE_LIMIT_PER_MINUTE: positive.default(600),
  AUTH_FAILURES_PER_MINUTE: positive.default(60),
  AUTH_FAILURES_BURST: positive.default(20),
  MCP_ALLOWED_HOSTS: list(hostKey, 'host names with an optional port, e.g. jobs.example.com,10.0.0.5:3000'),
  MCP_ALLOWED_ORIGINS: list(originKey, 'origins, e.g. https://app.example.com'),
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  IDEMPOTENCY_RETENTION_DAYS: positive.default(7),
  COMPANY_CONCURRENCY: positive.default(2),
  UPLOADS_PER_COMPANY: positive.default(2),
  UPLOAD_MB_PER_SECOND: z.coerce.number().min(0).default(6),
  DEMO_SEED: z.enum(['true', 'false']).default('true'),
  CHAT_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
  OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  OAUTH_CLIENT_DOCUMENTS_CA_FILE: z.string().min(1).optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
  WEBHOOK_RETRY_SECONDS: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'seconds separated by commas')
    .default('5,30,120,600,1800,3600,7200,14400,28800,36000')
    .transform((text) => text.split(',').map(Number)),
  WEBHOOK_TIMEOUT_MS: positive.max(15_000).default(15_000),
  WEBHOOK_SWEEP_MS: positive.default(1000),
  CHAT_RETRY_BASE_MS: positive.default(2000),
  CHAT_POLL_MS: positive.default(1000),
  CHAT_MAX_IN_FLIGHT: positive.default(16),
  CHAT_MAX_IN_FLIGHT_PER_TARGET: positive.default(1),
  FILES_DIR: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(3).optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  LINK_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  FILE_LINK_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86400)
    .default(3600),
  UPLOAD_LINK_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(7 * 86400)
    .default(86400),
  EXPORT_LINK_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86400)
    .default(7 * 86400),
  PDF_WORKERS: positive.max(16).default(1),
  // A 300-photo packet takes about 2 minutes here; a build's job counts as dead (its node died) after this.
  PACKET_BUILD_SECONDS: positive.min(10).max(3600).default(600),
  // One core is left to the event loop: on 2 cores, 2 decoding threads made get_job's p99 2.5× its idle value, 1 kept it within 1×.
  MEDIA_WORKERS: positive.max(16).default(Math.max(1, availableParallelism() - 1)),
  VIDEO_MAX_BYTES: positive.max(5 * 1024 ** 3).default(1024 ** 3),
  UPLOAD_IDLE_SECONDS: positive.max(3600).default(60),
  // OCR runs one tesseract process per page with one thread each (OpenMP on 2 cores made a page 14–19 s instead of 2.2 s).
  OCR_WORKERS: positive.max(16).default(Math.max(1, availableParallelism() - 1)),
  // A 300-dpi page takes about 2.2 s here; a page's job counts as dead (its node died) a while after this.
  OCR_PAGE_TIMEOUT_SECONDS: positive.min(5).max(600).default(60),
  QUEUE_POLL_MS: positive.min(50).max(60_000).default(1000),
  QUEUE_MAINTENANCE_SECONDS: positive.max(3600).default(10),
  JOBS_PER_COMPANY: positive.max(64).default(2),
  QUEUE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,40}$/, 'must be a lower-case SQL name')
    .default('pgboss'),
  TEMP_DIR: z.string().min(1).optional(),
  UNFINISHED_FILES_MINUTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 60)
    .default(60),
  SHUTDOWN_TIMEOUT_SECONDS: positive.min(2).max(300).default(10),
  NODE_ENV: z.string().optional(),
  FAST_WRITES: z.enum(['on', 'off']).default('on'),
  FAST_MCP_CALLS: z.enum(['on', 'off']).default('on'),
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
  /** Per key; for the admin token; failed authentications per client address. */
  rateLimit: {
    perMinute: number;
    burst: number;
    admin: { perMinute: number; burst: number };
    failedAuth: { perMinute: number; burst: number };
  };
  /** Names and browser origins /mcp accepts besides the service's own (DNS-rebinding protection). */
  mcp: { allowedHosts: string[]; allowedOrigins: string[] };
  /** Proxies in front of the service whose X-Forwarded-For is believed (0: none). */
  trustProxy: number;
  /** Shared rate-limit counts for several nodes; each node counts alone without it. */
  redisUrl?: string;
  /** Days an operation_id's answer is kept; older records are purged. */
  idempotencyRetentionDays: number;
  /** Tool calls of one company running at once on a node; the rest wait their turn. */
  companyConcurrency: number;
  /** Uploads of one company received and examined at once on a node; the others wait, unread. */
  uploadsPerCompany: number;
  /** Bytes a second of one company's uploads a node reads, all of them together; null: as fast as they come. */
  uploadBytesPerSecond: number | null;
  demoSeed: boolean;
  /** Chat webhooks: private/loopback targets allowed (tests only), first retry delay, polling, deliveries at once (per node, per webhook). */
  chat: {
    allowPrivateTargets: boolean;
    retryBaseMs: number;
    pollMs: number;
    maxInFlight: number;
    maxInFlightPerTarget: number;
  };
  /**
   * Webhook endpoints: http and private targets allowed (tests only), the waits before each retry
   * (seconds; the endpoint is disabled when the last retry fails), each attempt's deadline, and how
   * often a node looks for endpoints with events waiting that no write announced.
   */
  webhooks: { allowPrivateTargets: boolean; retrySeconds: number[]; timeoutMs: number; sweepMs: number };
  /** Assistants' Client ID Metadata Documents: private/loopback addresses allowed (tests only), and a certificate authority to trust besides the system's (PEM). */
  oauthClientDocuments: { allowPrivate: boolean; ca: string | null };
  /** Where files are kept: a directory (default DATA_DIR/files), or S3-compatible storage when a bucket is set. */
  files: FileStoreSettings;
  /** Signed links: the shared secret (else one kept in the database), the lifetime of file links, upload-page links and export links (default). */
  links: { secret?: string; fileSeconds: number; uploadSeconds: number; exportSeconds: number };
  /** Worker threads laying out PDF packets (each holds one packet's pictures at print size); also the packets a node builds at once. */
  pdfWorkers: number;
  /** Building one packet at most; its job is run again elsewhere once it has been running this long. */
  packetBuildSeconds: number;
  /** Worker threads decoding and resizing images; also the videos examined (ffprobe, ffmpeg) at once. */
  mediaWorkers: number;
  /** The largest video accepted (a request may hold twice this). */
  videoMaxBytes: number;
  /** An upload whose body sends nothing for this long is cut off with 408. */
  uploadIdleMs: number;
  /** Document pages read by OCR at once; pages one company may have waiting for OCR or being read. */
  ocrWorkers: number;
  /** Rendering and reading one page at most; its job is run again elsewhere once it has been running for this and half as long again. */
  ocrPageTimeoutSeconds: number;
  /** The durable job queue: how often an idle node looks for jobs, how often dead nodes' jobs are freed, one company's jobs a node runs at once per kind. */
  queue: { pollMs: number; maintenanceSeconds: number; perCompany: number; schema: string };
  /** Base of the service's temporary directories (one per process: infrastructure/files/temp-dir.ts). */
  tempDir: string;
  /** A stored file whose upload has not finished after this long is swept with its objects. */
  unfinishedFilesMinutes: number;
  /** Check every answer against the spec (on in tests: an off-spec answer fails its test). */
  validateResponses: boolean;
  /**
   * The fast paths, each on public interfaces of its dependencies and switched off by a setting:
   * writes' own transaction (src/infrastructure/db/fast-transaction), one MCP call straight to
   * the SDK's server (src/transports/mcp/fast-call).
   */
  fastPaths: { writes: boolean; mcpCalls: boolean };
  /** From SIGTERM to the process's exit at most (main.ts says what is stopped when). */
  shutdownTimeoutMs: number;
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
    rateLimit: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      burst: e.RATE_LIMIT_BURST,
      // Admin scripts come in bursts: only the minute counts.
      admin: { perMinute: e.ADMIN_RATE_LIMIT_PER_MINUTE, burst: e.ADMIN_RATE_LIMIT_PER_MINUTE },
      failedAuth: { perMinute: e.AUTH_FAILURES_PER_MINUTE, burst: e.AUTH_FAILURES_BURST },
    },
    mcp: { allowedHosts: e.MCP_ALLOWED_HOSTS, allowedOrigins: e.MCP_ALLOWED_ORIGINS },
    trustProxy: e.TRUST_PROXY,
    redisUrl: e.REDIS_URL,
    idempotencyRetentionDays: e.IDEMPOTENCY_RETENTION_DAYS,
    companyConcurrency: e.COMPANY_CONCURRENCY,
    uploadsPerCompany: e.UPLOADS_PER_COMPANY,
    uploadBytesPerSecond: e.UPLOAD_MB_PER_SECOND > 0 ? e.UPLOAD_MB_PER_SECOND * 1024 * 1024 : null,
    demoSeed: e.DEMO_SEED === 'true',
    oauthClientDocuments: {
      allowPrivate: e.OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE === 'true',
      ca: e.OAUTH_CLIENT_DOCUMENTS_CA_FILE ? readFileSync(e.OAUTH_CLIENT_DOCUMENTS_CA_FILE, 'utf8') : null,
    },
    webhooks: {
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
      retrySeconds: e.WEBHOOK_RETRY_SECONDS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      sweepMs: e.WEBHOOK_SWEEP_MS,
    },
    chat: {
      allowPrivateTargets: e.CHAT_ALLOW_PRIVATE_TARGETS === 'true',
      retryBaseMs: e.CHAT_RETRY_BASE_MS,
      pollMs: e.CHAT_POLL_MS,
      maxInFlight: e.CHAT_MAX_IN_FLIGHT,
      maxInFlightPerTarget: e.CHAT_MAX_IN_FLIGHT_PER_TARGET,
    },
    files: {
      filesDir: path.resolve(e.FILES_DIR ?? path.join(e.DATA_DIR, 'files')),
      s3: e.S3_BUCKET
        ? {
            bucket: e.S3_BUCKET,
            endpoint: e.S3_ENDPOINT,
            region: e.S3_REGION,
            forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true',
            credentials:
              e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY
                ? { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY }
                : undefined,
          }
        : null,
    },
    links: {
      secret: e.LINK_SECRET,
      fileSeconds: e.FILE_LINK_SECONDS,
      uploadSeconds: e.UPLOAD_LINK_SECONDS,
      exportSeconds: e.EXPORT_LINK_SECONDS,
    },
    pdfWorkers: e.PDF_WORKERS,
    packetBuildSeconds: e.PACKET_BUILD_SECONDS,
    mediaWorkers: e.MEDIA_WORKERS,
    videoMaxBytes: e.VIDEO_MAX_BYTES,
    uploadIdleMs: e.UPLOAD_IDLE_SECONDS * 1000,
    ocrWorkers: e.OCR_WORKERS,
    ocrPageTimeoutSeconds: e.OCR_PAGE_TIMEOUT_SECONDS,
    queue: {
      pollMs: e.QUEUE_POLL_MS,
      maintenanceSeconds: e.QUEUE_MAINTENANCE_SECONDS,
      perCompany: e.JOBS_PER_COMPANY,
      schema: e.QUEUE_SCHEMA,
    },
    tempDir: path.resolve(e.TEMP_DIR ?? path.join(tmpdir(), 'jms-service')),
    unfinishedFilesMinutes: e.UNFINISHED_FILES_MINUTES,
    validateResponses: e.NODE_ENV === 'test',
    fastPaths: { writes: e.FAST_WRITES === 'on', mcpCalls: e.FAST_MCP_CALLS === 'on' },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
  };
}
