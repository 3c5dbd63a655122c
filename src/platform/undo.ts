/**
 * Undo, for every write tool at once. Handlers change undoable records only through
 * `RecordedWrites`, which keeps each row's content from before the change and its version after
 * it. Taking an action back checks that every row still has that version (nobody changed it
 * since) and puts the earlier content back, last change first.
 */
import type { Knex } from 'knex';
import { ApiError, notFound } from './errors';
import { newId } from './ids';
import type { ChangeInput } from './changes';
import { runTogether } from '../infrastructure/db/together';
import { insertJsonRowsSql, insertSql, type Statement } from '../infrastructure/db/insert-sql';
import { lockJob } from './locks';
import { markUndone } from './idempotency';
import type { Caller } from './caller';

/** Tables whose rows carry `id`, `company_id` and `version`, and can be taken back. */
export type UndoableTable =
  | 'jobs'
  | 'contacts'
  | 'job_contacts'
  | 'job_assignees'
  | 'notes'
  | 'note_versions'
  | 'drying_logs'
  | 'drying_areas'
  | 'drying_readings'
  | 'drying_notes'
  | 'drying_skips'
  | 'drying_equipment'
  | 'drying_chambers'
  | 'estimates'
  | 'estimate_rooms'
  | 'estimate_lines'
  | 'photos'
  | 'videos'
  | 'documents'
  | 'job_rooms'
  | 'job_forms'
  | 'job_form_signers';

type Row = Record<string, unknown> & { id: string; version: number };

/** Up to this many rows, insertMany binds each value. */
const FEW_ROWS = 20;

/** A row to insert, with its id already made. */
export interface NewRow {
  table: UndoableTable;
  row: Record<string, unknown> & { id: string };
}

export interface RowChange {
  table: UndoableTable;
  id: string;
  /** The row before the change; null when the change created it. */
  before: Row | null;
  /** The row's version after the change; null when the change deleted it. */
  afterVersion: number | null;
}

export class RecordedWrites {
  readonly changes: RowChange[] = [];
  /** Estimate credits the write used (src/platform/credits.ts). */
  creditsUsed = 0;
  /** Inserts held back for the write's last statement (insertAtCommit). */
  readonly atCommit: Statement[] = [];
  /** Set by a write that is not its key's to take back (what an upload page sends): it records no undo. */
  outOfUndo = false;

  constructor(
    private readonly trx: Knex.Transaction,
    private readonly companyId: string,
  ) {}

  /** Inserts a row and returns it as saved, with `alsoReturn` (values computed from it) added. */
  async insert<T extends { id: string }>(
    table: UndoableTable,
    row: NewRow['row'],
    alsoReturn: Knex.Raw[] = [],
  ): Promise<T> {
    return this.insertTogether<T>([{ table, row }], alsoReturn);
  }

  /**
   * Inserts rows of several tables in one round trip and returns the first one as saved. Give
   * them in the order they depend on each other (the job before its contacts): undo takes them
   * back in reverse. Their ids are made before, so that none needs another's result, and foreign
   * keys are checked once all of them are in.
   */
  async insertTogether<T extends { id: string }>(inserts: NewRow[], alsoReturn: Knex.Raw[] = []): Promise<T> {
    const [first, ...others] = inserts.map(({ table, row }) => ({
      table,
      row: { ...row, company_id: this.companyId, version: 1 },
    }));
    const statements = others.map(({ table, row }) => insertSql(table, [row]));
    const [saved] = await runTogether<T>(this.trx, [
      ...statements,
      insertSql(first.table, [first.row], ['*', ...alsoReturn]),
    ]);
    for (const { table, row } of inserts)
      this.changes.push({ table, id: row.id, before: null, afterVersion: 1 });
    return saved;
  }

  /** Inserts many rows of one table (up to a month of readings) in one statement. */
  async insertMany(table: UndoableTable, rows: NewRow['row'][]): Promise<void> {
    if (rows.length > 0) await runTogether(this.trx, [this.recordInserts(table, rows)]);
  }

  /**
   * As insertMany, for rows that nothing in this write reads back: they go into the write's last
   * statement (with its undo record, stored answer and feed entries, sent with COMMIT), which
   * saves the write a round trip.
   */
  insertAtCommit(table: UndoableTable, rows: NewRow['row'][]): void {
    if (rows.length > 0) this.atCommit.push(this.recordInserts(table, rows));
  }

  /** Records the rows as inserted by this write, and gives the statement that inserts them: a few bound value by value, more as JSON. */
  private recordInserts(table: UndoableTable, rows: NewRow['row'][]): Statement {
    const full = rows.map((row) => ({ ...row, company_id: this.companyId, version: 1 }));
    for (const row of rows) this.changes.push({ table, id: row.id, before: null, afterVersion: 1 });
    return rows.length <= FEW_ROWS ? insertSql(table, full) : insertJsonRowsSql(table, full);
  }

  async update<T extends { id: string }>(
    table: UndoableTable,
    id: string,
    patch: Record<string, unknown>,
  ): Promise<T> {
    const before = await this.lockRow(table, id, 'update');
    const touched = 'updated_at' in before ? { updated_at: this.trx.fn.now() } : {};
    const [after] = await this.trx(table)
      .where({ id })
      .update({ ...patch, ...touched, version: before.version + 1 })
      .returning('*');
    this.changes.push({ table, id, before, afterVersion: after.version });
    return after as T;
  }

  async remove(table: UndoableTable, id: string): Promise<void> {
    const before = await this.lockRow(table, id, 'delete');
    await this.trx(table).where({ id }).delete();
    this.changes.push({ table, id, before, afterVersion: null });
  }

  /** The lock the statement takes anyway: an update leaves the row's key, so others may still reference it. */
  private async lockRow(table: UndoableTable, id: string, change: 'update' | 'delete'): Promise<Row> {
    const query = this.trx(table).where({ id, company_id: this.companyId });
    const row = await (change === 'update' ? query.forNoKeyUpdate() : query.forUpdate()).first();
    if (!row) throw notFound(table.replace(/s$/, ''));
    return row as Row;
  }
}

/** The statement that stores what a write changed, so that its key can take it back later. */
export function undoRecord(
  caller: Caller,
  tool: string,
  writes: RecordedWrites,
  described: ChangeInput,
  operationId: string | undefined,
): Statement | null {
  if (writes.changes.length === 0) return null;
  return insertSql('undo_actions', [
    {
      id: newId('undo'),
      company_id: caller.companyId,
      key_id: caller.keyId,
      tool,
      kind: described.kind,
      summary: described.summary,
      job_id: described.job?.id ?? null,
      job_number: described.job?.job_number ?? null,
      rows: JSON.stringify(writes.changes),
      credits_used: writes.creditsUsed,
      operation_id: operationId ?? null,
    },
  ]);
}

export interface UndoneAction {
  tool: string;
  summary: string;
  at: Date;
  record: { type: string; id: string };
  job: { id: string; job_number: number } | null;
  effect: string;
  creditsRefunded: number;
  change: ChangeInput;
  /** The key's changes undo cannot take back that are newer than this one, newest first. */
  passedOver: NotUndoable[];
}

/**
 * A change of the key in the feed that is in no undo record, such as an estimate made final by
 * a packet's download. Undo never goes past one without saying so.
 */
export interface NotUndoable {
  entryId: string;
  action: string;
  summary: string;
  at: Date;
  recordId: string | null;
  job: { id: string; job_number: number } | null;
}

/** What an undo takes back, in words: read before the rows are put back, worded once they are. */
export interface UndoDescription {
  /** The record the action was about (its first row): `estimate`, `note`, `job`, … */
  record: { type: string; id: string };
  effect(): Promise<string>;
}

/** The domain's wording of an undo (src/domain/undo/undo-effects.ts). */
export interface UndoWords {
  describe(trx: Knex.Transaction, changes: RowChange[], jobNumber: number | null): Promise<UndoDescription>;
  /** Why undo cannot take such a change back, in a sentence. */
  whyNotUndoable(change: NotUndoable): string;
  /** The record such a change was about, named as `describe` names records. */
  recordOf(change: NotUndoable): { type: string; id: string } | null;
}

/** Takes back the key's newest action that is not undone yet. */
export async function undoLastAction(
  trx: Knex.Transaction,
  caller: Caller,
  words: UndoWords,
): Promise<UndoneAction> {
  const action = await trx('undo_actions')
    .where({ key_id: caller.keyId, undone_at: null })
    .orderBy('position', 'desc')
    .forUpdate()
    .first();
  const passedOver = await notUndoableSince(trx, caller, action?.id ?? null);
  const last = passedOver.length > 0 ? ` ${lastChangeWords(passedOver[0], words)}` : '';
  if (!action)
    throw new ApiError(409, 'undo_not_possible', `There is nothing left to undo for this key.${last}`);

  const changes = (typeof action.rows === 'string' ? JSON.parse(action.rows) : action.rows) as RowChange[];
  if (action.job_id) await lockJob(trx, caller.companyId, action.job_id);
  const job = action.job_id ? { id: action.job_id as string, job_number: Number(action.job_number) } : null;
  const described = await words.describe(trx, changes, job?.job_number ?? null);
  try {
    for (const change of [...changes].reverse()) await restore(trx, caller.companyId, change, action.summary);
  } catch (error) {
    if (!(error instanceof ApiError) || !last) throw error;
    throw new ApiError(error.status, error.code, `${error.detail}${last}`);
  }
  await trx('undo_actions').where({ id: action.id }).update({ undone_at: trx.fn.now() });
  if (action.operation_id) await markUndone(trx, caller.companyId, action.operation_id);
  const creditsRefunded = Number(action.credits_used ?? 0);
  if (creditsRefunded > 0)
    await trx('companies').where({ id: caller.companyId }).increment('credits', creditsRefunded);

  const entry = await takenBackEntry(trx, caller.companyId, action.key_id, action.id);
  return {
    tool: action.tool,
    summary: action.summary,
    at: action.created_at,
    record: described.record,
    job,
    effect: await described.effect(),
    creditsRefunded,
    change: {
      kind: action.kind,
      data: { action: 'action.undone', undone: entry },
      summary: `Undid: ${action.summary}`,
      job,
    },
    passedOver,
  };
}

/** "This key's last change, … (at …), cannot be undone: why." */
export function lastChangeWords(change: NotUndoable, words: UndoWords): string {
  return `This key's last change, "${change.summary}" (${new Date(change.at).toISOString()}, feed entry ${change.entryId}), cannot be undone: ${words.whyNotUndoable(change)}`;
}

/**
 * The key's feed entries newer than the action undo would take back that no undo record
 * covers, newest first. An undoable write stamps its entries and its undo record with one
 * transaction's `now()`, so an entry without a record of that key at that moment is not
 * undoable; undo's own entries are not changes to take back. Without an action to take back,
 * only entries newer than the key's newest undo record (taken back already) count, which keeps
 * the search to the key's latest entries.
 */
async function notUndoableSince(
  trx: Knex.Transaction,
  caller: Caller,
  actionId: string | null,
): Promise<NotUndoable[]> {
  // Read in SQL, not through a JS Date, which would drop the timestamp's microseconds.
  const since = actionId
    ? trx('undo_actions').where({ id: actionId }).select('created_at')
    : trx('undo_actions')
        .where({ key_id: caller.keyId })
        .orderBy('position', 'desc')
        .limit(1)
        .select('created_at');
  const query = trx('change_entries as e')
    .where({ 'e.company_id': caller.companyId, 'e.key_id': caller.keyId })
    .whereNot('e.action', 'action.undone')
    // What an upload page sends, or a signer does on a signing page, is the doing of the person
    // at the page (RecordedWrites.outOfUndo), not a change of the key's to name.
    .whereRaw("coalesce(e.data->>'via', '') not in ('upload_page', 'signing_page')")
    .whereNotExists(
      trx('undo_actions as u')
        .where('u.key_id', caller.keyId)
        .whereRaw('u.created_at = e.at')
        .select(trx.raw('1')),
    )
    .whereRaw("e.at > coalesce((?), '-infinity'::timestamptz)", [since])
    .orderBy('e.seq', 'desc')
    .select('e.seq', 'e.action', 'e.summary', 'e.at', 'e.record_id', 'e.job_id', 'e.job_number');
  const rows = await query;
  return rows.map((row) => ({
    entryId: String(row.seq),
    action: row.action,
    summary: row.summary,
    at: row.at,
    recordId: row.record_id ?? null,
    job: row.job_id ? { id: row.job_id, job_number: Number(row.job_number) } : null,
  }));
}

/**
 * The feed entry the action wrote first (the one its undo record describes). Both were written by
 * one transaction, whose `now()` stamped the entry's `at` and the record's `created_at` alike, so
 * key and time find it, also for actions recorded before entries carried anything more.
 */
async function takenBackEntry(
  trx: Knex.Transaction,
  companyId: string,
  keyId: string,
  actionId: string,
): Promise<{ id: string; action: string }> {
  const entry = await trx('change_entries as e')
    .join('undo_actions as u', function () {
      this.on('u.key_id', 'e.key_id').andOn('u.created_at', 'e.at').andOn('u.summary', 'e.summary');
    })
    .where({ 'e.company_id': companyId, 'e.key_id': keyId, 'u.id': actionId })
    .orderBy('e.seq')
    .first('e.seq', 'e.action');
  if (!entry) throw new Error(`undo action ${actionId} has no change entry`);
  return { id: String(entry.seq), action: entry.action };
}

async function restore(
  trx: Knex.Transaction,
  companyId: string,
  change: RowChange,
  summary: string,
): Promise<void> {
  const row = trx(change.table).where({ id: change.id, company_id: companyId });
  // Deleting the row the change created needs FOR UPDATE; putting earlier content back does not.
  const current = await (change.before === null ? row.forUpdate() : row.forNoKeyUpdate()).first();
  const unchanged = change.afterVersion === null ? !current : current?.version === change.afterVersion;
  if (!unchanged) {
    throw new ApiError(
      409,
      'undo_not_possible',
      `"${summary}" cannot be undone: the record was changed since.`,
    );
  }
  try {
    if (change.before === null) await trx(change.table).where({ id: change.id }).delete();
    else if (current) await trx(change.table).where({ id: change.id }).update(change.before);
    else await trx(change.table).insert(change.before);
  } catch (error) {
    // Another record now depends on this one (23503), or took its place (23505).
    const code = (error as { code?: string }).code;
    if (code !== '23503' && code !== '23505') throw error;
    throw new ApiError(
      409,
      'undo_not_possible',
      `"${summary}" cannot be undone: other records were changed or added since.`,
    );
  }
}
