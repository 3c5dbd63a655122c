/**
 * The text of an INSERT, made without knex's query compiler: the write pipeline sends a few
 * inserts with every write, and compiling them through knex cost more of a create_job's CPU than
 * the rest of its statements' handling. A value is a parameter, or SQL put in its place when it
 * is a knex raw or query (`nextval(…)`, a sub-select).
 */
import type { Knex } from 'knex';

/** SQL text with `?` parameters, as knex's raw takes it. */
export interface Statement {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}

type Sql = { toSQL(): { sql: string; bindings: readonly Knex.RawBinding[] } };

const isSql = (value: unknown): value is Sql =>
  typeof value === 'object' && value !== null && typeof (value as Partial<Sql>).toSQL === 'function';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function insertSql(
  table: string,
  rows: Record<string, unknown>[],
  returning?: (string | Knex.Raw)[],
): Statement {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const bindings: Knex.RawBinding[] = [];
  const sqlOf = (value: unknown): string => {
    if (value === undefined) return 'default';
    if (!isSql(value)) {
      bindings.push(value as Knex.RawBinding);
      return '?';
    }
    const compiled = value.toSQL();
    bindings.push(...compiled.bindings);
    return `(${compiled.sql})`;
  };
  const values = rows.map((row) => `(${columns.map((column) => sqlOf(row[column])).join(', ')})`);
  const returned =
    returning?.map((item) => (typeof item === 'string' ? item : valueOfRaw(item, bindings))) ?? [];
  const tail = returned.length ? ` returning ${returned.join(', ')}` : '';
  return {
    sql: `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${values.join(', ')}${tail}`,
    bindings,
  };
}

/**
 * The insert of many rows of one table as one parameter: the rows as JSON, typed by the table's
 * own columns. Bound one value at a time, 1,200 rows of 13 columns cost the driver and
 * PostgreSQL more than the rows do.
 */
export function insertJsonRowsSql(table: string, rows: Record<string, unknown>[]): Statement {
  const columns = Object.keys(rows[0]).map(quote).join(', ');
  return {
    sql: `insert into ${quote(table)} (${columns}) select ${columns} from jsonb_populate_recordset(null::${quote(table)}, ?::jsonb)`,
    bindings: [JSON.stringify(rows)],
  };
}

/** A raw item of a RETURNING list, written as it is (it names itself with `as`). */
function valueOfRaw(raw: Knex.Raw, bindings: Knex.RawBinding[]): string {
  const compiled = raw.toSQL();
  bindings.push(...compiled.bindings);
  return compiled.sql;
}
