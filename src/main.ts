/**
 * `npm start`: settings, database (migrated), the server, then the demo company on a new
 * database. The port is bound before the demo is made: its keys are printed only once, so a start
 * that cannot listen must stop before it makes them.
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { pino, type Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './platform/config';
import { openDatabase } from './infrastructure/db/connect';
import { createApp } from './transports/http/app';
import { createHttpServer } from './transports/http/server';
import { seedDemo, type DemoKeys } from './demo/seed';
import { startNodeServices, type NodeServices } from './node-services';
import { migrateToLatest } from './database';

/** The last-resort exit comes this long before the bound, so that the process is gone by then. */
const LAST_RESORT_MARGIN_MS = 500;

/**
 * The banner goes to stderr: stdout carries the JSON log lines, which a log shipper reads, and
 * the keys must not end up among them.
 */
function printWelcome(config: Config, demo: DemoKeys | null): void {
  const lines = [
    `Job Management Service on ${config.publicUrl}  (HTTP ${config.publicUrl}/api/v1, MCP ${config.publicUrl}/mcp)`,
  ];
  if (demo) {
    lines.push(
      '',
      `A demo company "${demo.companyName}" (${demo.companyId}) was created. Its keys are shown only now:`,
      `  write key: ${demo.writeKey}`,
      `  read key:  ${demo.readKey}`,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${demo.writeKey}" ${config.publicUrl}/api/v1/jobs`,
      '',
      'MCP client configuration:',
      JSON.stringify(
        {
          mcpServers: {
            jobs: {
              type: 'http',
              url: `${config.publicUrl}/mcp`,
              headers: { Authorization: `Bearer ${demo.writeKey}` },
            },
          },
        },
        null,
        2,
      )
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n'),
    );
  }
  console.error(lines.join('\n'));
}

/** Resolves once the server listens; a busy port or a refused address rejects. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function cannotListen(config: Config, error: NodeJS.ErrnoException): string {
  const where = `${config.host}:${config.port}`;
  if (error.code === 'EADDRINUSE')
    return `Cannot listen on ${where}: the port is already in use (another copy of the service?). Stop it or choose another PORT. Nothing was created.`;
  if (error.code === 'EACCES')
    return `Cannot listen on ${where}: permission denied. Choose a PORT above 1023. Nothing was created.`;
  return `Cannot listen on ${where}: ${error.message}. Nothing was created.`;
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Log lines are buffered and written in batches, not one write per request, but a quiet
  // service's lines must not wait for the buffer to fill: flushed every second and at exit.
  const logger = pino(
    { level: config.logLevel },
    pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  );
  setInterval(() => logger.flush(), 1000).unref();
  const db = await openDatabase({ ...config, fastWrites: config.fastPaths.writes });
  await migrateToLatest(db);

  const node = await startNodeServices(db, config, logger, { deliverChat: true, deliverWebhooks: true });
  // Aborted when the node stops: uploads under way are answered 503 with Retry-After.
  const draining = new AbortController();
  const app = createApp({
    db,
    config,
    logger,
    redis: node.redis,
    media: node.media,
    webhooks: node.webhooks,
    stopping: draining.signal,
  });
  const server = createHttpServer(app);
  const bound = await listen(server, config.port, config.host).then(
    () => null,
    (error: NodeJS.ErrnoException) => error,
  );
  if (bound) {
    console.error(cannotListen(config, bound));
    await node.stop();
    await db.destroy();
    process.exit(1);
  }
  server.on('error', (error) => logger.error({ err: error }, 'server error'));

  const isEmpty = !(await db('companies').first('id'));
  const demo = config.demoSeed && isEmpty ? await seedDemo(db, config, node.media) : null;
  printWelcome(config, demo);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void shutDown({ signal, server, node, db, logger, boundMs: config.shutdownTimeoutMs, draining });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * SIGTERM/SIGINT: the process ends within `boundMs` (SHUTDOWN_TIMEOUT_SECONDS), whatever hangs.
 * At once: no new connection is accepted, uploads under way are answered 503 (`draining`), and
 * the node stops its work: deliveries under way are cut short and left to their retries, queued
 * jobs held here are released for another node. Requests in flight get half the bound to finish,
 * then their connections are closed; jobs that do not stop when told get as long, then are left
 * to expire as a dead node's would. Then the queue, the pools and the database close, and the
 * process exits 0. A last-resort timer exits 1 just before the bound if any of that hangs.
 */
async function shutDown(stopping: {
  signal: string;
  server: Server;
  node: NodeServices;
  db: Knex;
  logger: Logger;
  boundMs: number;
  draining: AbortController;
}): Promise<void> {
  const { server, node, db, logger, boundMs } = stopping;
  const started = Date.now();
  logger.info({ signal: stopping.signal, bound_seconds: boundMs / 1000 }, 'shutting down');
  setTimeout(() => {
    logger.error({ after_ms: Date.now() - started }, 'shutdown did not finish in time: exiting now');
    logger.flush();
    process.exit(1);
  }, boundMs - LAST_RESORT_MARGIN_MS).unref();

  stopping.draining.abort();
  const requestsEnded = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const patience = boundMs / 2;
  const [requestsInTime, workInTime] = await Promise.all([
    within(requestsEnded, patience),
    within(node.stopWork(), patience),
  ]);
  if (!requestsInTime) server.closeAllConnections();
  if (!workInTime) logger.warn('jobs still running at shutdown are left to expire and run again elsewhere');
  await node.stop();
  await db.destroy();
  logger.info({ took_ms: Date.now() - started }, 'stopped');
  logger.flush();
  process.exit(0);
}

/** Whether `promise` settled within `ms`. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.finally(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
