import type { Knex } from 'knex';

/**
 * Runs several data-modifying statements in one round trip, as one parameterised statement: all
 * but the last become WITH clauses of the last one, whose rows are returned. They see the same
 * snapshot, so they must not depend on each other's effects (foreign keys are fine: PostgreSQL
 * checks them once the whole statement is done).
 */
export async function runTogether<Row = Record<string, unknown>>(trx: Knex.Transaction, statements: (Knex.QueryBuilder | null)[]): Promise<Row[]> {
  const compiled = statements.filter((statement): statement is Knex.QueryBuilder => statement !== null).map((statement) => statement.toSQL());
  const last = compiled.pop();
  if (!last) return [];
  const clauses = compiled.map((statement, index) => `s${index} as (${statement.sql})`);
  const sql = clauses.length ? `with ${clauses.join(', ')} ${last.sql}` : last.sql;
  const result = await trx.raw(sql, [...compiled.flatMap((statement) => statement.bindings), ...last.bindings]);
  return result.rows as Row[];
}
