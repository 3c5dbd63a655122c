/**
 * The fast transaction every write runs in on PostgreSQL (README.md here: what it saves, how to
 * switch it off). knex's own transaction builds a whole knex instance each time (a closure for
 * each of its hundred query methods, listeners, a copy of its client): about 220 µs of CPU a
 * transaction, more than a create_job's statements cost the driver. Here the handle is a small
 * function over the knex instance, on public interfaces only: the connection comes from
 * `client.acquireConnection()`, BEGIN, COMMIT and savepoints go through pg's `Client#query`, and
 * queries are knex's own builders run on that connection with `.connection()`.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Client as PgClient, QueryConfig, QueryResult } from 'pg';

/** The knex instances whose writes run in this transaction (openDatabase marks them). */
const fastDatabases = new WeakSet<Knex.Client>();

export function useFastTransactions(db: Knex): void {
  fastDatabases.add(db.client);
}

export function hasFastTransactions(db: Knex): boolean {
  return fastDatabases.has(db.client);
}

/** A transaction's connection as knex is handed it: pg's client, refusing statements once the transaction is over. */
interface GuardedConnection extends PgClient {
  over: boolean;
}

const ALREADY_COMPLETE = 'Transaction query already complete: a statement was sent after its write ended';

function guarded(connection: PgClient): GuardedConnection {
  const guard = Object.create(connection) as GuardedConnection;
  guard.over = false;
  // knex runs its statements with pg's query(config, callback); anything else is passed on as sent.
  guard.query = function (this: GuardedConnection, ...args: unknown[]) {
    if (this.over) {
      const done = args.find((arg) => typeof arg === 'function') as ((error: Error) => void) | undefined;
      const error = new Error(ALREADY_COMPLETE);
      if (done) return void process.nextTick(done, error);
      return Promise.reject(error);
    }
    return (connection.query as (...a: unknown[]) => unknown)(...args);
  } as GuardedConnection['query'];
  return guard;
}

const CONNECTION = Symbol('connection');
const DATABASE = Symbol('database');

type Handle = Knex.Transaction & { [CONNECTION]: GuardedConnection; [DATABASE]: Knex };

/**
 * The query methods a knex instance offers directly (`knex.select(…)`, `knex.insert(…)`), read
 * from the instance itself: each of its own functions that a query builder also has.
 */
function queryMethodsOf(db: Knex): string[] {
  const builder = db.queryBuilder() as unknown as Record<string, unknown>;
  const own = db as unknown as Record<string, unknown>;
  return Object.keys(db).filter(
    (name) => typeof own[name] === 'function' && typeof builder[name] === 'function',
  );
}

const handlePrototypes = new WeakMap<Knex, object>();

/** Per knex instance, made once: what every handle finds through its prototype. */
function handlePrototype(db: Knex): object {
  let prototype = handlePrototypes.get(db);
  if (prototype) return prototype;
  const methods: Record<string, unknown> = {
    queryBuilder(this: Handle) {
      return this[DATABASE].queryBuilder().connection(this[CONNECTION]);
    },
    raw(this: Handle, ...args: unknown[]) {
      const raw = (this[DATABASE].raw as (...a: unknown[]) => Knex.Raw)(...args);
      return raw.connection(this[CONNECTION]);
    },
    ref(this: Handle, name: string) {
      return this[DATABASE].ref(name);
    },
    transaction(this: Handle, work: (trx: Knex.Transaction) => Promise<unknown>) {
      return onSavepoint(this, work);
    },
    isCompleted(this: Handle) {
      return this[CONNECTION].over;
    },
    isTransaction: true,
  };
  for (const name of queryMethodsOf(db)) {
    if (name in methods) continue;
    methods[name] = function (this: Handle, ...args: unknown[]) {
      const builder = this.queryBuilder() as unknown as Record<string, (...a: unknown[]) => unknown>;
      return builder[name](...args);
    };
  }
  prototype = Object.create(Function.prototype, {
    ...Object.fromEntries(Object.entries(methods).map(([name, value]) => [name, { value }])),
    client: {
      get(this: Handle) {
        return this[DATABASE].client;
      },
    },
    fn: {
      get(this: Handle) {
        return this[DATABASE].fn;
      },
    },
  }) as object;
  handlePrototypes.set(db, prototype);
  return prototype;
}

function handleOn(db: Knex, connection: GuardedConnection): Handle {
  const handle = ((table?: string) => {
    const builder = handle.queryBuilder();
    return table ? builder.table(table) : builder;
  }) as unknown as Handle;
  Object.setPrototypeOf(handle, handlePrototype(db));
  handle[CONNECTION] = connection;
  handle[DATABASE] = db;
  return handle;
}

/** Sends a statement now, on the transaction's connection (a prepared one when named); resolves with its rows. */
function send<Row>(connection: PgClient, config: QueryConfig): Promise<Row[]> {
  return new Promise<Row[]>((resolve, reject) => {
    connection.query(config, (error: Error | null, result: QueryResult) =>
      error ? reject(error) : resolve(result.rows as Row[]),
    );
  });
}

/** Runs `work` in a transaction: committed when it resolves, rolled back when it throws. */
export async function inFastTransaction<T>(
  db: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  const connection = (await db.client.acquireConnection()) as PgClient;
  const guard = guarded(connection);
  try {
    // Not waited for: in pg's pipeline mode it travels with the first statement, and is answered before it.
    const begun = send(connection, { text: 'BEGIN' });
    begun.catch(() => undefined);
    let result: T;
    try {
      result = await work(handleOn(db, guard));
      await begun;
    } catch (error) {
      guard.over = true;
      await send(connection, { text: 'ROLLBACK' }).catch(() => undefined);
      throw error;
    }
    guard.over = true;
    await send(connection, { text: 'COMMIT' });
    return result;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

let savepoints = 0;

/** A transaction inside one: on a savepoint of the same connection, rejected with what its work threw. */
async function onSavepoint<T>(outer: Handle, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const connection = outer[CONNECTION];
  const name = `fast_savepoint_${++savepoints}`;
  await send(connection, { text: `SAVEPOINT ${name}` });
  const inner = guarded(connection);
  try {
    const result = await work(handleOn(outer[DATABASE], inner));
    inner.over = true;
    await send(connection, { text: `RELEASE SAVEPOINT ${name}` });
    return result;
  } catch (error) {
    inner.over = true;
    await send(connection, { text: `ROLLBACK TO SAVEPOINT ${name}` });
    throw error;
  }
}

/** A statement's text with `$n` parameters and the name it is prepared under. */
interface PreparedText {
  name: string;
  text: string;
}

/** By `?` text. Their shapes are few (one per kind of row a write inserts); the bound is a guard. */
const preparedTexts = new Map<string, PreparedText>();
const MOST_TEXTS = 1000;

function preparedText(sql: string): PreparedText {
  let found = preparedTexts.get(sql);
  if (!found) {
    if (preparedTexts.size >= MOST_TEXTS) preparedTexts.clear();
    let position = 0;
    found = {
      name: `p_${createHash('sha1').update(sql).digest('base64url')}`,
      text: sql.replace(/\?/g, () => `$${++position}`),
    };
    preparedTexts.set(sql, found);
  }
  return found;
}

/**
 * Sends a statement of the write pipeline's (`?` parameters, plain values) on a fast transaction's
 * connection as a named prepared statement, past knex's query compiler, whose handling of the few
 * long statements every write sends cost more CPU than pg's. The statement is on its way when
 * this returns; its rows come later. Null when `trx` is not a fast transaction, or the text holds
 * what only knex reads (`??` identifiers, an escaped `\?`).
 */
export function sendPrepared<Row>(
  trx: Knex.Transaction,
  sql: string,
  bindings: readonly Knex.RawBinding[],
): { rows: Promise<Row[]> } | null {
  const connection = (trx as unknown as Partial<Handle>)[CONNECTION];
  if (!connection || sql.includes('??') || sql.includes('\\?')) return null;
  const { name, text } = preparedText(sql);
  const rows = send<Row>(connection, { name, text, values: bindings as unknown[] });
  // Awaited by the caller, maybe only after its COMMIT is answered: not an unhandled rejection meanwhile.
  rows.catch(() => undefined);
  return { rows };
}
