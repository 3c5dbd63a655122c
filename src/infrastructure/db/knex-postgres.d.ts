// knex ships no types for the parts of its PostgreSQL dialect that pipelined-pg.ts extends.
declare module 'knex/lib/dialects/postgres' {
  import { Client } from 'knex';
  const Client_PG: typeof Client;
  export = Client_PG;
}

declare module 'knex/lib/dialects/postgres/execution/pg-transaction' {
  import type { Knex } from 'knex';
  class Transaction_PG {
    constructor(client: Knex.Client, container: unknown, config: unknown, outerTx: unknown);
    isolationLevel?: string;
    readOnly?: boolean;
    begin(connection: unknown): Promise<unknown>;
    /** Runs a statement of the transaction's own; an error fails the transaction. */
    query(connection: unknown, sql: string): Promise<unknown>;
  }
  export = Transaction_PG;
}
