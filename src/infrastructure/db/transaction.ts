/**
 * The transaction every write runs in. On PostgreSQL it is not knex's: knex builds a whole knex
 * instance for each transaction (a closure for each of its hundred query methods, listeners, a
 * copy of its client), which cost about 220 µs of CPU a transaction, more than a create_job's
 * statements cost the driver. Here the handle is a small function over a client of its own that
 * is knex's client with the transaction's connection fixed: queries are built and run by knex as
 * usual, and refused once the transaction is over, as knex refuses them. A transaction inside it
 * (`trx.transaction(…)`) is knex's, on a savepoint. PGlite keeps knex's transaction.
 */
import type { Knex } from 'knex';
import QueryInterface from 'knex/lib/query/method-constants';
import FunctionHelper from 'knex/lib/knex-builder/FunctionHelper';
import { PipelinedPgClient, sendNow, type PgConnection } from './pipelined-pg';

/** Runs `work` in a transaction: committed when it resolves, rolled back when it throws. */
export function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.client instanceof PipelinedPgClient ? onOwnConnection(db.client, work) : db.transaction(work);
}

/** knex's client, with one connection for as long as the transaction lasts. */
interface PinnedClient extends PipelinedPgClient {
  pinned: PgConnection;
  over: boolean;
}

const pinnedClients = new WeakMap<PipelinedPgClient, object>();

/** Per knex client, made once: what every transaction's client inherits. */
function pinnedPrototype(client: PipelinedPgClient): object {
  let prototype = pinnedClients.get(client);
  if (!prototype) {
    prototype = Object.create(client, {
      transacting: { value: true },
      acquireConnection: {
        value(this: PinnedClient) {
          return this.over
            ? Promise.reject(
                new Error('Transaction query already complete: a statement was sent after its write ended'),
              )
            : Promise.resolve(this.pinned);
        },
      },
      releaseConnection: { value: () => Promise.resolve() },
    }) as object;
    pinnedClients.set(client, prototype);
  }
  return prototype;
}

type Handle = Knex.Transaction & { client: PinnedClient };

/** What every handle has, found through its prototype: knex's query methods, raw, ref, fn. */
const handleMethods: Record<string, unknown> = {
  queryBuilder(this: Handle) {
    return this.client.queryBuilder();
  },
  raw(this: Handle, ...args: unknown[]) {
    return (this.client.raw as (...a: unknown[]) => Knex.Raw)(...args);
  },
  ref(this: Handle, ...args: unknown[]) {
    return (this.client.ref as (...a: unknown[]) => Knex.Ref<string, object>)(...args);
  },
  transaction(this: Handle, container: (trx: Knex.Transaction) => unknown, config?: object) {
    return this.client.transaction(container, { doNotRejectOnRollback: true, ...config }, null);
  },
  isCompleted(this: Handle) {
    return this.client.over;
  },
  isTransaction: true,
};
for (const method of QueryInterface) {
  handleMethods[method] = function (this: Handle, ...args: unknown[]) {
    const builder = this.queryBuilder() as unknown as Record<string, (...a: unknown[]) => unknown>;
    return builder[method](...args);
  };
}
const handlePrototype = Object.create(Function.prototype, {
  ...Object.fromEntries(Object.entries(handleMethods).map(([name, value]) => [name, { value }])),
  fn: {
    get(this: Handle) {
      return new FunctionHelper(this.client);
    },
  },
}) as object;

async function onOwnConnection<T>(
  base: PipelinedPgClient,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  const connection = (await base.acquireConnection()) as PgConnection;
  const client = Object.create(pinnedPrototype(base)) as PinnedClient;
  client.pinned = connection;
  client.over = false;
  const handle = ((table?: string) => {
    const builder = client.queryBuilder();
    return table ? builder.table(table) : builder;
  }) as unknown as Handle;
  Object.setPrototypeOf(handle, handlePrototype);
  (handle as { client: PinnedClient }).client = client;
  try {
    // Not waited for: it travels with the first statement, and is answered before it.
    const begun = sendNow(connection, 'BEGIN');
    begun.catch(() => undefined);
    let result: T;
    try {
      result = await work(handle);
      await begun;
    } catch (error) {
      client.over = true;
      await sendNow(connection, 'ROLLBACK').catch(() => undefined);
      throw error;
    }
    client.over = true;
    await sendNow(connection, 'COMMIT');
    return result;
  } finally {
    await base.releaseConnection(connection);
  }
}
