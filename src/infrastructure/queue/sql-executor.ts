/**
 * pg-boss's database adapter over knex: its SQL goes through the service's own connections (and
 * through a transaction, when a job is queued with a write), on PostgreSQL and PGlite alike.
 */
import type { Knex } from 'knex';
import { runScript } from '../db/connect';

interface Executor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A value as knex binds it: pg-boss hands objects (JSON columns) that knex would refuse for their undefined fields. */
function bindable(value: unknown): Knex.RawBinding {
  if (value === undefined) return null;
  if (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !Buffer.isBuffer(value)
  )
    return JSON.stringify(value);
  return value as Knex.RawBinding;
}

export function executorOf(db: Knex): Executor {
  return {
    async executeSql(text, values = []) {
      // Its migrations are scripts of many statements without parameters.
      if (values.length === 0 && /;\s*\S/.test(text.trim().replace(/;\s*$/, ''))) {
        await runScript(db, text);
        return { rows: [] };
      }
      // pg-boss writes $1, $2 (some more than once); knex takes ? in order. Its SQL has no other `?`.
      const bindings: Knex.RawBinding[] = [];
      const sql = text.replace(/\$(\d+)/g, (_match, index: string) => {
        bindings.push(bindable(values[Number(index) - 1]));
        return '?';
      });
      const result = (await db.raw(sql, bindings)) as { rows?: unknown[] };
      return { rows: result.rows ?? [] };
    },
  };
}
