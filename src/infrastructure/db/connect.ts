import path from 'node:path';
import { mkdirSync } from 'node:fs';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import ClientPgLite from 'knex-pglite';
import { PipelinedPgClient, pipelined } from './pipelined-pg';

export type Db = Knex;

const INT8 = 20;
const DATE = 1082;

/**
 * PostgreSQL when a URL is given, otherwise the embedded PGlite (in `dataDir`, or in memory when
 * `dataDir` is null). Both return bigints as numbers and calendar dates as 'YYYY-MM-DD' strings,
 * so that handlers see the same values whichever database runs.
 */
export async function openDatabase(options: { databaseUrl?: string; dataDir: string | null }): Promise<Db> {
  if (options.databaseUrl) {
    pg.types.setTypeParser(INT8, (value) => Number(value));
    pg.types.setTypeParser(DATE, (value) => value);
    return knex({ client: PipelinedPgClient, connection: pipelined(options.databaseUrl), pool: { min: 0, max: 10 } });
  }
  const dir = options.dataDir ? path.join(options.dataDir, 'pgdata') : undefined;
  if (dir) mkdirSync(dir, { recursive: true });
  // Always open with the same extensions: a data dir reopened without pg_trgm breaks its indexes.
  const pglite = await PGlite.create(dir, {
    extensions: { pg_trgm },
    parsers: { [INT8]: (value: string) => Number(value), [DATE]: (value: string) => value },
  });
  return knex({ client: ClientPgLite as unknown as typeof knex.Client, connection: () => ({ pglite }) } as Knex.Config);
}
