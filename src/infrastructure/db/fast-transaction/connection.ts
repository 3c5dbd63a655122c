import type { Knex } from 'knex';
import { CorkedSocket } from './corked-socket';

/**
 * pg's settings for the fast transaction's connections, all public: pipeline mode (a statement
 * goes out without waiting for the answer to the one before; answers come back in order), so a
 * transaction's BEGIN travels with its first statement and the write's last statement with its
 * COMMIT, on a socket that writes what one turn of the event loop sent at once.
 */
export function fastConnectionSettings(databaseUrl: string): Knex.PgConnectionConfig {
  // knex hands these to pg's Client as they are; its typing of them lists no `pipeline`.
  return {
    connectionString: databaseUrl,
    pipeline: true,
    stream: () => new CorkedSocket(),
  } as Knex.PgConnectionConfig;
}
