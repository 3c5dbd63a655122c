// knex ships no types for the parts of its PostgreSQL dialect that pipelined-pg.ts extends.
declare module 'knex/lib/dialects/postgres' {
  import { Client } from 'knex';
  class Client_PG extends Client {
    /** Hands a compiled statement to the driver. */
    _query(connection: unknown, query: unknown): Promise<unknown>;
    /** `?` parameters → `$1`, `$2`, … */
    positionBindings(sql: string): string;
  }
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

declare module 'knex/lib/query/method-constants' {
  /** The query builder's methods a knex instance offers directly (`knex.select(…)`). */
  const methods: string[];
  export = methods;
}

declare module 'knex/lib/knex-builder/FunctionHelper' {
  import type { Knex } from 'knex';
  /** What `knex.fn` is: `now()`, `uuid()`, … as raw SQL of the client's dialect. */
  class FunctionHelper {
    constructor(client: Knex.Client);
  }
  export = FunctionHelper;
}
