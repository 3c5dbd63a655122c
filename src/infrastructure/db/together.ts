import type { Knex } from 'knex';
import { sendPrepared } from './fast-transaction/transaction';
import type { Statement } from './insert-sql';

/**
 * Runs several data-modifying statements in one round trip, as one parameterised statement: all
 * but the last become WITH clauses of the last one, whose rows are returned. They see the same
 * snapshot, so they must not depend on each other's effects (foreign keys are fine: PostgreSQL
 * checks them once the whole statement is done).
 *
 * These are the statements every write sends, so each is prepared once per connection, named
 * after its text: parsing and planning a CTE of several inserts cost PostgreSQL about a fifth of
 * a create_job. Their texts are few (one per shape of row a handler inserts; values are always
 * parameters), so the prepared statements stay few too.
 */
export async function runTogether<Row = Record<string, unknown>>(
  trx: Knex.Transaction,
  statements: (Statement | null)[],
): Promise<Row[]> {
  return (await sendTogether<Row>(trx, statements)).rows;
}

/**
 * Sends the statements as runTogether does, and returns as soon as the driver has the statement,
 * with its rows still to come: whatever the transaction sends next (its COMMIT) goes out behind
 * it without waiting for its answer.
 */
export async function sendTogether<Row = Record<string, unknown>>(
  trx: Knex.Transaction,
  statements: (Statement | null)[],
): Promise<{ rows: Promise<Row[]> }> {
  const compiled = statements.filter((statement): statement is Statement => statement !== null);
  const last = compiled.pop();
  if (!last) return { rows: Promise.resolve([]) };
  const clauses = compiled.map((statement, index) => `s${index} as (${statement.sql})`);
  const sql = clauses.length ? `with ${clauses.join(', ')} ${last.sql}` : last.sql;
  const bindings = [...compiled.flatMap((statement) => statement.bindings), ...last.bindings];
  const direct = sendPrepared<Row>(trx, sql, bindings);
  if (direct) return direct;
  const query = trx.raw(sql, bindings);
  // knex emits 'query' just before it hands the statement to the driver, in the same step.
  const sent = new Promise<void>((resolve) => query.once('query', () => resolve()));
  const rows = query.then((result: { rows: Row[] }) => result.rows);
  await Promise.race([sent, rows.catch(() => undefined)]);
  return { rows };
}
