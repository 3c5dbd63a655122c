/**
 * Against PostgreSQL (DATABASE_URL set) the schema is rebuilt once per run; each test file then
 * works in companies of its own. On PGlite each test file has its own in-memory database, started
 * from a template migrated here once per run (test/support/app.ts), instead of running every
 * migration in every file.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dumpEmbedded, openDatabase } from '../../src/infrastructure/db/connect';
import { migrateToLatest } from '../../src/database';
import { TEMPLATE_ENV } from './database-template';

export default async function globalSetup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) return makeEmbeddedTemplate();
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

/** The workers jest starts after this inherit the template's path through the environment. */
async function makeEmbeddedTemplate(): Promise<void> {
  const db = await openDatabase({ dataDir: null });
  await migrateToLatest(db);
  const file = path.join(tmpdir(), `jms-template-${process.pid}.tar`);
  await writeFile(file, Buffer.from(await (await dumpEmbedded(db)).arrayBuffer()));
  await db.destroy();
  process.env[TEMPLATE_ENV] = file;
}
