/**
 * `npm start`: settings, database (migrated), the server, then the demo company on a new
 * database. The port is bound before the demo is made: its keys are printed only once, so a start
 * that cannot listen must stop before it makes them.
 */
import type { Server } from 'node:http';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './platform/config';
import { openDatabase } from './infrastructure/db/connect';
import { createApp } from './transports/http/app';
import { createHttpServer } from './transports/http/server';
import { seedDemo, type DemoKeys } from './demo/seed';
import { startNodeServices } from './node-services';
import { migrateToLatest } from './database';

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
  const app = createApp({
    db,
    config,
    logger,
    redis: node.redis,
    media: node.media,
    webhooks: node.webhooks,
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

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the database.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close(async () => {
      await node.stop();
      await db.destroy();
      logger.flush();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
