/**
 * Idempotent writes. A write with an `operation_id` stores its answer under (company,
 * operation_id), a unique key, in the transaction that makes the change. A same request sent
 * later finds that answer before it changes anything. One running alongside runs its handler too,
 * but its answer's insert waits on the first one's key and fails once that commits: its
 * transaction, with all it changed, is rolled back, and the first answer is its answer.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError } from './errors';
import { insertSql, type Statement } from '../infrastructure/db/insert-sql';
import type { Caller } from './caller';

export interface StoredAnswer {
  status: number;
  body: unknown;
}

interface IdempotencyRecord {
  fingerprint: string;
  status: number | null;
  body: string | null;
  undone_at: Date | null;
}

/** The same tool with the same inputs, whatever the order of their keys. */
export function fingerprint(tool: string, input: unknown): string {
  return createHash('sha256')
    .update(`${tool}\n${canonicalJson(input)}`)
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The stored answer for this operation_id, if a write with it has committed. Planned on every call,
 * not prepared: this table starts empty and grows with every write, and a plan kept from its first
 * rows reads it whole. On a server whose table went unanalysed while growing, every create_job's
 * look-up grew slower: PostgreSQL's CPU per create rose from 1 to 4 ms within a minute of creates.
 */
export async function findAnswer(
  db: Knex,
  caller: Caller,
  operationId: string,
  print: string,
): Promise<StoredAnswer | null> {
  // Written as text: asked before every write, and knex's query builder costs more than the look-up.
  const { rows } = (await db.raw(
    'select fingerprint, status, body, undone_at from idempotency_records where company_id = ? and operation_id = ?',
    [caller.companyId, operationId],
  )) as { rows: IdempotencyRecord[] };
  return rows[0] ? answerOf(rows[0], print) : null;
}

/** The statement that stores the answer under the operation_id, before commit. */
export function storedAnswer(
  caller: Caller,
  tool: string,
  operationId: string,
  print: string,
  answer: StoredAnswer,
): Statement {
  return insertSql('idempotency_records', [
    {
      company_id: caller.companyId,
      operation_id: operationId,
      tool,
      fingerprint: print,
      key_id: caller.keyId,
      status: answer.status,
      body: answer.body === undefined ? null : JSON.stringify(answer.body),
    },
  ]);
}

function answerOf(record: IdempotencyRecord, print: string): StoredAnswer {
  if (record.fingerprint !== print) {
    throw new ApiError(
      409,
      'operation_id_conflict',
      'This operation_id was already used for a different request. Resend the original request unchanged, or use a new operation_id for a new action.',
    );
  }
  if (record.undone_at) {
    throw new ApiError(
      409,
      'operation_undone',
      `The write sent with this operation_id was taken back by undo at ${new Date(record.undone_at).toISOString()}. To do it again, send it with a new operation_id.`,
    );
  }
  return { status: record.status ?? 200, body: record.body === null ? undefined : JSON.parse(record.body) };
}

/** After undo took the write back: its operation_id answers 409 operation_undone from now on. */
export async function markUndone(
  trx: Knex.Transaction,
  companyId: string,
  operationId: string,
): Promise<void> {
  await trx('idempotency_records')
    .where({ company_id: companyId, operation_id: operationId })
    .update({ undone_at: trx.fn.now() });
}

const PURGE_BATCH = 500;

/**
 * Deletes answers older than the retention, a small batch at a time so that no statement holds
 * many locks or runs long; a younger record is never touched. Resolves with the number deleted.
 */
export async function purgeExpiredAnswers(db: Knex, retentionDays: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const expired = db('idempotency_records')
      .where('created_at', '<', db.raw(`now() - make_interval(days => ?)`, [retentionDays]))
      .limit(PURGE_BATCH)
      .forUpdate()
      .skipLocked()
      .select('company_id', 'operation_id');
    // The rows, not the count: PGlite's driver does not answer a DELETE with a number.
    const gone = await db('idempotency_records')
      .whereIn(['company_id', 'operation_id'], expired)
      .delete()
      .returning('operation_id');
    deleted += gone.length;
    if (gone.length < PURGE_BATCH) return deleted;
  }
}
