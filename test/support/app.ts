/**
 * A running service for a test file: the real app on a random port, on PostgreSQL when
 * DATABASE_URL is set and on an in-memory PGlite otherwise, with answers checked against the
 * spec. Companies, people and keys are made through the admin API, as an operator would.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request, { type Response } from 'supertest';
import { pino } from 'pino';
import type { Knex } from 'knex';
import { createApp } from '../../src/transports/http/app';
import { createHttpServer } from '../../src/transports/http/server';
import { loadConfig, type Config } from '../../src/platform/config';
import { openDatabase } from '../../src/infrastructure/db/connect';
import { SETTLED_TXID } from '../../src/platform/changes';
import { startNodeServices } from '../../src/node-services';
import type { MediaServices } from '../../src/domain/services';
import { migrateToLatest } from '../../src/database';
import { databaseTemplate } from './database-template';
import { START_TIMEOUT_MS, slowStartMessage } from './start-timeout';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  url: string;
  db: Knex;
  media: MediaServices;
  config: Config;
  http: ReturnType<typeof request>;
  close(): Promise<void>;
}

/**
 * `dataDir` keeps the PGlite database on disk, so that a test can stop the app and start it
 * again on the same data (on PostgreSQL the data outlives the app anyway). A start slower than
 * START_TIMEOUT_MS fails with a message that says the machine is loaded (start-timeout.ts).
 */
export async function startApp(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestApp> {
  const started = startAppNow(env, options);
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The start goes on: whatever it opens is closed once it is done.
      void started.then((app) => app.close()).catch(() => undefined);
      reject(new Error(slowStartMessage()));
    }, START_TIMEOUT_MS);
  });
  try {
    return await Promise.race([started, tooSlow]);
  } finally {
    clearTimeout(timer);
  }
}

interface StartOptions {
  dataDir?: string;
  deliverChat?: boolean;
  deliverWebhooks?: boolean;
}

async function startAppNow(env: Record<string, string>, options: StartOptions): Promise<TestApp> {
  // Each app keeps its files in a directory of its own, removed when it closes.
  const filesDir = await mkdtemp(path.join(tmpdir(), 'jms-files-'));
  // Listening first, so that the app knows its own address (links, OAuth issuer and resources).
  let app: Express | null = null;
  const server: Server = await new Promise((resolve) => {
    const s = createHttpServer(((req: IncomingMessage, res: ServerResponse) =>
      app!(req, res)) as Express).listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    PUBLIC_URL: url,
    NODE_ENV: 'test',
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_BURST: '100000',
    ADMIN_RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_FAILURES_PER_MINUTE: '100000',
    AUTH_FAILURES_BURST: '100000',
    // On PostgreSQL every test file's apps share the database: each app has a job queue of its
    // own (its own files too), unless a test gives two apps one queue.
    ...(process.env.DATABASE_URL
      ? { DATABASE_URL: process.env.DATABASE_URL, QUEUE_SCHEMA: `queue_t${randomUUID().slice(0, 8)}` }
      : {}),
    FILES_DIR: filesDir,
    // FAST_WRITES=off / FAST_MCP_CALLS=off run any test file on the plain paths.
    ...Object.fromEntries(
      ['FAST_WRITES', 'FAST_MCP_CALLS'].flatMap((name) =>
        process.env[name] ? [[name, process.env[name]]] : [],
      ),
    ),
    ...env,
  });
  // A database in memory starts from the run's migrated template; on disk it is migrated here.
  const template = config.databaseUrl || options.dataDir ? null : databaseTemplate();
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: options.dataDir ?? null,
    fastWrites: config.fastPaths.writes,
    template: (await template) ?? undefined,
  });
  if (!config.databaseUrl && !template) await migrateToLatest(db);
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const node = await startNodeServices(db, config, logger, {
    deliverChat: options.deliverChat,
    deliverWebhooks: options.deliverWebhooks,
  });
  app = createApp({ db, config, logger, redis: node.redis, media: node.media, webhooks: node.webhooks });
  return {
    url,
    db,
    media: node.media,
    config,
    http: request(url),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await node.stop();
      await db.destroy();
      await rm(filesDir, { recursive: true, force: true });
    },
  };
}

export interface TestCompany {
  id: string;
  name: string;
  people: { id: string; name: string; role: string }[];
  /** Write key of the first person. */
  writeKey: string;
  /** Read key of the first person. */
  readKey: string;
  /** Another write key of the second person. */
  otherWriteKey: string;
  timezone: string;
}

/** The calendar date `offset` days from today in the company's timezone (`-10`: ten days ago). */
export function companyDate(company: Pick<TestCompany, 'timezone'>, offset = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone: company.timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
  return new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
}

const DEFAULT_TEAM = [
  { name: 'Avery Stone', role: 'Owner' },
  { name: 'Dana Brooks', role: 'Project manager' },
  { name: 'Dana White', role: 'Technician' },
  { name: 'Sam Okafor', role: 'Technician' },
];

export async function createCompany(
  t: TestApp,
  options: { name?: string; credits?: number; timezone?: string } = {},
): Promise<TestCompany> {
  const admin = (req: request.Test) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  const company = await admin(t.http.post('/admin/v1/companies'))
    .send({
      name: options.name ?? `Co ${randomUUID().slice(0, 8)}`,
      credits: options.credits ?? 5,
      ...(options.timezone ? { timezone: options.timezone } : {}),
    })
    .expect(201);
  const people = [];
  for (const member of DEFAULT_TEAM) {
    people.push(
      (
        await admin(t.http.post(`/admin/v1/companies/${company.body.id}/team`))
          .send(member)
          .expect(201)
      ).body,
    );
  }
  const key = async (personId: string, scope: 'read' | 'write') =>
    (
      await admin(t.http.post(`/admin/v1/companies/${company.body.id}/keys`))
        .send({ person_id: personId, scope })
        .expect(201)
    ).body.key as string;
  return {
    id: company.body.id,
    name: company.body.name,
    people,
    writeKey: await key(people[0].id, 'write'),
    readKey: await key(people[0].id, 'read'),
    otherWriteKey: await key(people[1].id, 'write'),
    timezone: company.body.timezone,
  };
}

/** A request with an API key: `as(t, key).get('/api/v1/jobs')`. */
export function as(t: TestApp, key: string) {
  const auth = (req: request.Test) => req.set('Authorization', `Bearer ${key}`);
  return {
    get: (path: string) => auth(t.http.get(path)),
    post: (path: string) => auth(t.http.post(path)),
    patch: (path: string) => auth(t.http.patch(path)),
    put: (path: string) => auth(t.http.put(path)),
    delete: (path: string) => auth(t.http.delete(path)),
  };
}

export const opId = (): string => randomUUID();

/**
 * Waits until the change feed shows every write committed so far. The feed shows an entry once
 * no older transaction is still running (src/platform/changes.ts); on PostgreSQL other test files
 * write at the same time, so a test that expects its own writes in the feed waits for them. On
 * PGlite this returns at once.
 */
export async function feedSettled(t: TestApp): Promise<void> {
  const mine = await t.db.first(t.db.raw('pg_current_xact_id()::text::bigint as xid'));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const now = await t.db.first(t.db.raw(`${SETTLED_TXID} as horizon`));
    if (Number(now.horizon) > Number(mine.xid)) return;
    if (Date.now() > deadline) throw new Error('the feed did not settle within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Sends requests so that they really overlap: a transaction of the test holds the database while
 * they are sent (on PGlite, whose one connection everything shares, every request's first query
 * queues behind it, so all of them pass the replay check before any commits), then lets them all
 * go at once. On PostgreSQL they run side by side anyway.
 */
export async function atOnce(t: TestApp, requests: (() => Promise<Response>)[]): Promise<Response[]> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const holder = t.db.transaction(async (trx) => {
    await trx.raw('select 1');
    holding();
    await released;
  });
  await held;
  const answers = Promise.all(requests.map((send) => send()));
  await new Promise((resolve) => setTimeout(resolve, 150));
  release();
  await holder;
  return answers;
}
