/**
 * Against PostgreSQL (DATABASE_URL set) the schema is rebuilt once per run; each test file then
 * works in companies of its own. On PGlite each test file has its own in-memory database.
 */
import { openDatabase } from '../../src/infrastructure/db/connect';
import { migrateToLatest } from '../../src/database';

export default async function globalSetup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) return;
  const db = await openDatabase({ databaseUrl, dataDir: null });
  await db.raw('drop schema if exists public cascade');
  // The job queues of earlier runs' apps (test/support/app.ts gives each its own schema).
  const { rows } = (await db.raw(
    "select nspname from pg_namespace where nspname like 'queue_t%' or nspname = 'pgboss'",
  )) as { rows: { nspname: string }[] };
  for (const { nspname } of rows) await db.raw('drop schema ?? cascade', [nspname]);
  await db.raw('create schema public');
  await migrateToLatest(db);
  await db.destroy();
}
