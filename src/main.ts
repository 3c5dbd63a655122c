/** `npm start`: settings, database (migrated), the demo company on a new database, the server. */
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './config';
import { openDatabase } from './db/connect';
import { migrateToLatest } from './db/migrate';
import { createApp } from './app';
import { seedDemo, type DemoKeys } from './demo/seed';
import { startChatDelivery } from './chat/delivery';
import { startNodeServices } from './platform/node-services';

function printWelcome(config: Config, demo: DemoKeys | null): void {
  const lines = [`Job Management Service on ${config.publicUrl}  (HTTP ${config.publicUrl}/api/v1, MCP ${config.publicUrl}/mcp)`];
  if (demo) {
    lines.push(
      '',
      `A demo company "${demo.companyName}" was created. Its keys are shown only now:`,
      `  write key: ${demo.writeKey}`,
      `  read key:  ${demo.readKey}`,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${demo.writeKey}" ${config.publicUrl}/api/v1/jobs`,
      '',
      'MCP client configuration:',
      JSON.stringify({ mcpServers: { jobs: { type: 'http', url: `${config.publicUrl}/mcp`, headers: { Authorization: `Bearer ${demo.writeKey}` } } } }, null, 2)
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n'),
    );
  }
  console.log(lines.join('\n'));
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Log lines are buffered and written in batches, not one write per request; flushed at exit.
  const logger = pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  const db = await openDatabase(config);
  await migrateToLatest(db);
  const isEmpty = !(await db('companies').first('id'));
  const demo = config.demoSeed && isEmpty ? await seedDemo(db, config) : null;

  const node = await startNodeServices(db, config, logger);
  const app = createApp({ db, config, logger, redis: node.redis });
  const chat = startChatDelivery({ db, config, logger });
  const server = app.listen(config.port, config.host, () => printWelcome(config, demo));
  server.on('error', (error) => {
    console.error(`Cannot listen on ${config.host}:${config.port}: ${error.message}`);
    process.exit(1);
  });

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the database.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close(async () => {
      await chat.stop();
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
