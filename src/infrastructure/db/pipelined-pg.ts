/**
 * knex's PostgreSQL client, with its connections in pg's pipeline mode: a statement goes out
 * without waiting for the answer to the one before, and answers come back in order. A
 * transaction's BEGIN is sent without waiting, so that it travels with the first statement, and
 * the write pipeline sends its last statement the same way, just ahead of COMMIT. A create_job
 * then waits on the database three times instead of five.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import Client_PG from 'knex/lib/dialects/postgres';
import Transaction_PG from 'knex/lib/dialects/postgres/execution/pg-transaction';

/** A connection of pg's, as far as this project uses it past knex. */
export interface PgConnection {
  connection: { stream: { cork(): void; uncork(): void } };
  query(
    config: { text: string; name?: string; values?: readonly unknown[] },
    done: (error: Error | null, result: { rows: unknown[] }) => void,
  ): void;
}

class TransactionBegunInFlight extends Transaction_PG {
  override begin(connection: unknown): Promise<unknown> {
    if (this.isolationLevel || this.readOnly) return super.begin(connection);
    // Answered before the first statement is; an error fails the transaction as usual.
    void this.query(connection, 'BEGIN;');
    return Promise.resolve();
  }
}

const corked = new WeakSet<object>();

/**
 * Holds what is written to the connection until the statements sent in the same turn of the
 * event loop are all there, then writes them at once: a BEGIN and the first statement, or the
 * write's last statement and its COMMIT, cost one write to the socket and one wake of the server.
 */
function writeAtEndOfTurn(connection: PgConnection): void {
  const { stream } = connection.connection;
  if (corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(() => {
    corked.delete(stream);
    stream.uncork();
  });
}

export class PipelinedPgClient extends Client_PG {
  override transaction(container: unknown, config: unknown, outerTx: unknown): Knex.Transaction {
    return new TransactionBegunInFlight(this, container, config, outerTx) as unknown as Knex.Transaction;
  }

  override _query(connection: unknown, query: unknown): Promise<unknown> {
    writeAtEndOfTurn(connection as PgConnection);
    return super._query(connection, query);
  }
}

/** Sends a statement on the connection at the end of this turn of the event loop; resolves with its rows. */
export function sendNow<Row = unknown>(
  connection: PgConnection,
  text: string,
  name?: string,
  values?: readonly unknown[],
): Promise<Row[]> {
  writeAtEndOfTurn(connection);
  return new Promise<Row[]>((resolve, reject) => {
    connection.query({ text, name, values }, (error, result) =>
      error ? reject(error) : resolve(result.rows as Row[]),
    );
  });
}

/** The connection settings that put pg's connections in pipeline mode. */
export function pipelined(databaseUrl: string): Knex.PgConnectionConfig {
  return { connectionString: databaseUrl, pipeline: true } as Knex.PgConnectionConfig;
}

/** A statement's text with `$n` parameters and the name it is prepared under. */
interface PreparedText {
  name: string;
  text: string;
}

/** By `?` text. Their shapes are few (one per kind of row a write inserts); the bound is a guard. */
const preparedTexts = new Map<string, PreparedText>();
const MOST_TEXTS = 1000;

function preparedText(client: PipelinedPgClient, sql: string): PreparedText {
  let found = preparedTexts.get(sql);
  if (!found) {
    if (preparedTexts.size >= MOST_TEXTS) preparedTexts.clear();
    found = {
      name: `p_${createHash('sha1').update(sql).digest('base64url')}`,
      text: client.positionBindings(sql),
    };
    preparedTexts.set(sql, found);
  }
  return found;
}

/**
 * Sends a statement of the write pipeline's (`?` parameters, plain values) on a transaction's
 * own connection as a named prepared statement, past knex's query compiler, whose handling of
 * the few long statements every write sends cost more CPU than pg's. The statement is on its way
 * when this returns; its rows come later. Null when the transaction is not on this client (PGlite),
 * or the text holds what only knex reads (`??` identifiers, an escaped `\?`).
 */
export async function sendPrepared<Row>(
  trx: Knex.Transaction,
  sql: string,
  bindings: readonly Knex.RawBinding[],
): Promise<{ rows: Promise<Row[]> } | null> {
  if (!(trx.client instanceof PipelinedPgClient) || sql.includes('??') || sql.includes('\\?')) return null;
  const connection = (await trx.client.acquireConnection()) as PgConnection;
  const { name, text } = preparedText(trx.client, sql);
  const rows = sendNow<Row>(connection, text, name, bindings);
  // Awaited by the caller, maybe only after its COMMIT is answered: not an unhandled rejection meanwhile.
  rows.catch(() => undefined);
  return { rows };
}
