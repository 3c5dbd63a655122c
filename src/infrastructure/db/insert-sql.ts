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

const isSql = (value: unknown): value is Sql => typeof value === 'object' && value !== null && typeof (value as Partial<Sql>).toSQL === 'function';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function insertSql(table: string, rows: Record<string, unknown>[], returning?: (string | Knex.Raw)[]): Statement {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const bindings: Knex.RawBinding[] = [];
  const valueOf = (value: unknown): string => {
    if (value === undefined) return 'default';
    if (!isSql(value)) {
      bindings.push(value as Knex.RawBinding);
      return '?';
    }
    const compiled = value.toSQL();
    bindings.push(...compiled.bindings);
    return `(${compiled.sql})`;
  };
  const values = rows.map((row) => `(${columns.map((column) => valueOf(row[column])).join(', ')})`);
  const returned = returning?.map((item) => (typeof item === 'string' ? item : valueOfRaw(item, bindings))) ?? [];
  const tail = returned.length ? ` returning ${returned.join(', ')}` : '';
  return { sql: `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${values.join(', ')}${tail}`, bindings };
}

/** A raw item of a RETURNING list, written as it is (it names itself with `as`). */
function valueOfRaw(raw: Knex.Raw, bindings: Knex.RawBinding[]): string {
  const compiled = raw.toSQL();
  bindings.push(...compiled.bindings);
  return compiled.sql;
}
