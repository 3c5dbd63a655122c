import path from 'node:path';
import { mkdirSync } from 'node:fs';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { fastConnectionSettings } from './fast-transaction/connection';
import { useFastTransactions } from './fast-transaction/transaction';

export type Db = Knex;

/** The embedded database behind a knex of PGlite, for what its one-statement queries cannot do. */
const embedded = new WeakMap<
  Knex,
  { exec(sql: string): Promise<unknown>; dumpDataDir(compression: 'none'): Promise<Blob> }
>();

interface ScriptConnection {
  query(sql: string): Promise<unknown>;
}

/**
 * Runs a script of several statements (no parameters) on one connection: PGlite's queries take
 * one statement at a time. A script that fails inside its own BEGIN leaves its connection in an
 * aborted transaction: it is rolled back before the connection serves anything else.
 */
export async function runScript(db: Knex, sql: string): Promise<void> {
  const pglite = embedded.get(db);
  const client = db.client as {
    acquireConnection(): Promise<ScriptConnection>;
    releaseConnection(connection: ScriptConnection): Promise<void>;
  };
  const connection: ScriptConnection = pglite
    ? { query: (text) => pglite.exec(text) }
    : await client.acquireConnection();
  try {
    await connection.query(sql);
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (!pglite) await client.releaseConnection(connection);
  }
}

const INT8 = 20;
const DATE = 1082;

/**
 * PostgreSQL when a URL is given, otherwise the embedded PGlite (in `dataDir`, or in memory when
 * `dataDir` is null). Both return bigints as numbers and calendar dates as 'YYYY-MM-DD' strings,
 * so that handlers see the same values whichever database runs. On PostgreSQL, writes run in the
 * fast transaction (./fast-transaction) unless `fastWrites` is false (FAST_WRITES=off).
 * `template`: an embedded database's data directory (`dumpEmbedded`) to start from instead of an
 * empty one; the tests migrate one once per run and start every file's database from it.
 */
export async function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string | null;
  fastWrites?: boolean;
  template?: Blob;
}): Promise<Db> {
  if (options.databaseUrl) {
    pg.types.setTypeParser(INT8, (value) => Number(value));
    pg.types.setTypeParser(DATE, (value) => value);
    const fast = options.fastWrites !== false;
    const db = knex({
      client: 'pg',
      connection: fast ? fastConnectionSettings(options.databaseUrl) : options.databaseUrl,
      pool: { min: 0, max: 10 },
    });
    if (fast) useFastTransactions(db);
    return db;
  }
  // Loaded only for the embedded database: PGlite is tens of megabytes a server's node never uses.
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const { pg_trgm } =
    require('@electric-sql/pglite/contrib/pg_trgm') as typeof import('@electric-sql/pglite/contrib/pg_trgm');
  const ClientPgLite = require('knex-pglite') as typeof import('knex-pglite');
  const dir = options.dataDir ? path.join(options.dataDir, 'pgdata') : undefined;
  if (dir) mkdirSync(dir, { recursive: true });
  // Always open with the same extensions: a data dir reopened without pg_trgm breaks its indexes.
  const pglite = await PGlite.create(dir, {
    extensions: { pg_trgm },
    parsers: { [INT8]: (value: string) => Number(value), [DATE]: (value: string) => value },
    ...(options.template ? { loadDataDir: options.template } : {}),
  });
  const db = knex({
    client: ClientPgLite as unknown as typeof knex.Client,
    connection: () => ({ pglite }),
  } as Knex.Config);
  embedded.set(db, pglite);
  return db;
}

/** The data directory of an embedded database, as a tar archive `openDatabase` can start from. */
export async function dumpEmbedded(db: Knex): Promise<Blob> {
  const pglite = embedded.get(db);
  if (!pglite) throw new Error('only an embedded database can be dumped');
  return pglite.dumpDataDir('none');
}
