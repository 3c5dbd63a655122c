import type { Knex } from 'knex';
import { decodeCursor, encodeCursor, pageOf, type Page } from '../../platform/pagination';

export const DEFAULT_LIMIT = 25;

/**
 * Pages a table's rows oldest first, by `(created_at, id)`. The cursor keeps created_at as
 * PostgreSQL's own microsecond text: a JavaScript Date keeps only milliseconds, and rows made in
 * the same millisecond would be skipped or repeated across pages.
 */
export async function pageByCreation<Row extends { id: string }, T>(
  rows: Knex.QueryBuilder,
  alias: string,
  query: { limit?: number; cursor?: string },
  toItem: (row: Row) => T,
): Promise<Page<T>> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (query.cursor) {
    const after = decodeCursor(query.cursor, { at: 'text', id: 'text' });
    rows.whereRaw(`(${alias}.created_at, ${alias}.id) > (?::timestamptz, ?)`, [after.at, after.id]);
  }
  const found = (await rows
    .select(
      rows.client.raw(
        `to_char(${alias}.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_pos`,
      ),
    )
    .orderBy([{ column: `${alias}.created_at` }, { column: `${alias}.id` }])
    .limit(limit + 1)) as (Row & { created_pos: string })[];
  return pageOf(found, limit, toItem, (row) => encodeCursor({ at: row.created_pos, id: row.id }));
}
