/**
 * knex's PostgreSQL client, with its connections in pg's pipeline mode: a statement goes out
 * without waiting for the answer to the one before, and answers come back in order. A
 * transaction's BEGIN is sent without waiting, so that it travels with the first statement, and
 * the write pipeline sends its last statement the same way, just ahead of COMMIT. A create_job
 * then waits on the database three times instead of five.
 */
import type { Knex } from 'knex';
import Client_PG from 'knex/lib/dialects/postgres';
import Transaction_PG from 'knex/lib/dialects/postgres/execution/pg-transaction';

class TransactionBegunInFlight extends Transaction_PG {
  override begin(connection: unknown): Promise<unknown> {
    if (this.isolationLevel || this.readOnly) return super.begin(connection);
    // Answered before the first statement is; an error fails the transaction as usual.
    void this.query(connection, 'BEGIN;');
    return Promise.resolve();
  }
}

export class PipelinedPgClient extends Client_PG {
  override transaction(container: unknown, config: unknown, outerTx: unknown): Knex.Transaction {
    return new TransactionBegunInFlight(this, container, config, outerTx) as unknown as Knex.Transaction;
  }
}

/** The connection settings that put pg's connections in pipeline mode. */
export function pipelined(databaseUrl: string): Knex.PgConnectionConfig {
  return { connectionString: databaseUrl, pipeline: true } as Knex.PgConnectionConfig;
}
