import type { Knex } from 'knex';

/**
 * Runs several data-modifying statements in one round trip: all but the last become WITH clauses
 * of the last one. They see the same snapshot, so they must not depend on each other's effects.
 */
export async function runTogether(trx: Knex.Transaction, statements: (Knex.QueryBuilder | null)[]): Promise<void> {
  const present = statements.filter((statement): statement is Knex.QueryBuilder => statement !== null);
  if (present.length === 0) return;
  const last = present.pop()!;
  const clauses = present.map((statement, index) => `s${index} as (${statement.toQuery()})`);
  await trx.raw(clauses.length ? `with ${clauses.join(', ')} ${last.toQuery()}` : last.toQuery());
}
