/**
 * What taking an action back does, in words a person and a program can read, e.g. "deleted
 * estimate 'Water mitigation' on #5 with 2 rooms and 7 lines, total $1,133.08", or "deleted room
 * 'Bath' on #5; kept estimate 'Water mitigation', total $1,400.00 → $1,133.08". Made from the
 * rows the action recorded, before they are put back: what the action created is deleted, what
 * it removed is put back, and what it changed is kept with its earlier content. Each is said as
 * what it is, so that a record that stays is never counted among the deleted.
 */
import type { Knex } from 'knex';
import { formatMoney } from '../../platform/money';
import type { NotUndoable, RowChange, UndoableTable, UndoWords } from '../../platform/undo';
import { loadEstimate, totalsOf } from '../estimates/estimate-records';
import type { Caller } from '../../platform/caller';

const NOUNS: Record<UndoableTable, [string, string]> = {
  jobs: ['job', 'jobs'],
  contacts: ['contact', 'contacts'],
  job_contacts: ['contact on the job', 'contacts on the job'],
  job_assignees: ['assignment', 'assignments'],
  notes: ['note', 'notes'],
  note_versions: ['note correction', 'note corrections'],
  drying_logs: ['drying log', 'drying logs'],
  drying_areas: ['drying area', 'drying areas'],
  drying_readings: ['reading', 'readings'],
  drying_notes: ['drying note', 'drying notes'],
  drying_skips: ['skipped day', 'skipped days'],
  drying_equipment: ['drying unit', 'drying units'],
  drying_chambers: ['drying chamber', 'drying chambers'],
  estimates: ['estimate', 'estimates'],
  estimate_rooms: ['room', 'rooms'],
  estimate_lines: ['line', 'lines'],
  photos: ['photo', 'photos'],
  videos: ['video', 'videos'],
  documents: ['document', 'documents'],
  // A photo room of the job, not a room of its estimate.
  job_rooms: ['photo room', 'photo rooms'],
  job_forms: ['form sent for signature', 'forms sent for signature'],
  job_form_signers: ['signer', 'signers'],
};

const ESTIMATE_TABLES = new Set<UndoableTable>(['estimates', 'estimate_rooms', 'estimate_lines']);

type Verb = 'deleted' | 'restored the earlier' | 'put back';
const verbOf = (change: RowChange): Verb =>
  change.before === null ? 'deleted' : change.afterVersion === null ? 'put back' : 'restored the earlier';

type Money = { cents: number; currency: string };

/** Undo's words for the caller's actions, and why a change is not one undo can take back. */
export function undoWords(caller: Caller): UndoWords {
  return {
    describe: async (trx, recorded, jobNumber) => {
      const changes = await withoutTouches(trx, worded(netChanges(recorded)));
      const estimateId = await estimateOf(trx, changes);
      const totalBefore = estimateId ? await estimateTotal(trx, caller, estimateId) : null;
      const primary = changes[0];
      const row = primary.before ?? (await currentRow(trx, primary));
      return {
        record: { type: NOUNS[primary.table][0], id: primary.id },
        effect: async () => {
          const totalAfter = estimateId ? await estimateTotal(trx, caller, estimateId) : null;
          return effectOf(changes, row, jobNumber, totalBefore, totalAfter);
        },
      };
    },
    whyNotUndoable,
    recordOf: (change) =>
      change.recordId ? { type: recordType(change.recordId), id: change.recordId } : null,
  };
}

/** What an id names, by its prefix (src/platform/ids.ts): `est_…` an estimate, `pho_…` a photo. */
const RECORD_TYPES: Record<string, string> = {
  est: 'estimate',
  pho: 'photo',
  vid: 'video',
  doc: 'document',
  note: 'note',
  job: 'job',
  frm: 'form',
};
const recordType = (id: string): string => RECORD_TYPES[id.slice(0, id.indexOf('_'))] ?? 'record';

/**
 * One change per row, as undo leaves it: a row the action created and then changed is deleted, a
 * row changed twice gets back what it held first, a row created and removed again is no change.
 * What the action created comes first (it is what the action was about: the readings, not the
 * log whose plan they lengthened), then the rest in the order of the action.
 */
function netChanges(recorded: RowChange[]): RowChange[] {
  const byRow = new Map<string, RowChange>();
  for (const change of recorded) {
    const key = `${change.table}|${change.id}`;
    const first = byRow.get(key);
    byRow.set(key, first ? { ...first, afterVersion: change.afterVersion } : change);
  }
  const net = [...byRow.values()].filter((c) => !(c.before === null && c.afterVersion === null));
  const created = net.filter((c) => c.before === null);
  return [...created, ...net.filter((c) => c.before !== null)];
}

/**
 * Leaves out rows that come with another: a contact made for a job with its link to the job, a
 * note's earlier texts with the note (correcting a note is said as the note getting its earlier
 * text back, retracting it as the note put back).
 */
function worded(changes: RowChange[]): RowChange[] {
  const has = (table: UndoableTable) => changes.some((c) => c.table === table);
  const hidden = new Set<UndoableTable>([
    ...(has('contacts') ? (['job_contacts'] as const) : []),
    ...(has('notes') ? (['note_versions'] as const) : []),
    ...(has('job_forms') ? (['job_form_signers'] as const) : []),
  ]);
  return changes.filter((c) => !hidden.has(c.table));
}

/** Columns a change keeps up to date by itself: a row that differs only in them was only touched. */
const DERIVED_COLUMNS = new Set(['version', 'updated_at', 'search_text', 'search_digits']);

/**
 * Leaves out the rows the action only touched (a job whose search text follows its contacts, an
 * estimate's version bumped with its lines): undo puts them back too, but they are not worth a
 * word. The estimate stays in: its total is said.
 */
async function withoutTouches(trx: Knex.Transaction, changes: RowChange[]): Promise<RowChange[]> {
  const kept: RowChange[] = [];
  for (const change of changes) {
    // Only other tables' rows are ever merely touched; the first row's are what the action did.
    if (
      change.table === changes[0].table ||
      change.table === 'estimates' ||
      verbOf(change) !== 'restored the earlier'
    )
      kept.push(change);
    else if (!(await onlyTouched(trx, change))) kept.push(change);
  }
  return kept;
}

async function onlyTouched(trx: Knex.Transaction, change: RowChange): Promise<boolean> {
  const now = await currentRow(trx, change);
  const before: Record<string, unknown> = change.before ?? {};
  return Object.keys(before).every(
    (column) => DERIVED_COLUMNS.has(column) || sameValue(before[column], now[column]),
  );
}

/** The row as recorded (JSON) against the row as read: dates and numbers compared as JSON writes them. */
const sameValue = (recorded: unknown, read: unknown): boolean =>
  JSON.stringify(recorded ?? null) === JSON.stringify(read ?? null);

/** The reason a change the key made is in no undo record, and what to do instead. */
function whyNotUndoable(change: NotUndoable): string {
  if (change.action === 'estimate.finalized')
    return 'a final estimate stays final (its PDF may already be with the carrier); write a new estimate instead.';
  if (change.action === 'form.voided')
    return 'a voided form stays voided (its signers were told it no longer holds); ask for a new signature instead.';
  return 'it is not in this key’s undo history.';
}

/**
 * The sentence: the first row's change with the rows changed the same way, then the rows changed
 * otherwise ("; put back …", "; kept …"), and the estimate's total.
 */
function effectOf(
  changes: RowChange[],
  row: Record<string, unknown>,
  jobNumber: number | null,
  totalBefore: Money | null,
  totalAfter: Money | null,
): string {
  const [primary] = changes;
  const verb = verbOf(primary);
  const same = changes.filter((c) => c.table === primary.table && verbOf(c) === verb);
  // The estimate whose rooms or lines changed is kept: said last, with its total.
  const keptEstimate = changes.find(
    (c) => c.table === 'estimates' && verbOf(c) === 'restored the earlier' && c !== primary,
  );
  const others = changes.filter((c) => !same.includes(c) && c !== keptEstimate);

  const [one, many] = NOUNS[primary.table];
  const label = labelOf(row);
  let effect =
    same.length === 1 ? `${verb} ${one}${label ? ` '${label}'` : ''}` : `${verb} ${same.length} ${many}`;
  const alike = others.filter((c) => verbOf(c) === verb);
  if (alike.length > 0) effect += `${verb === 'deleted' ? ' with' : ' and'} ${countsOf(alike)}`;
  if (jobNumber !== null) effect += ` on #${jobNumber}`;
  if (primary.table === 'estimates') effect += totalWords(totalBefore, totalAfter);

  for (const otherVerb of ['deleted', 'put back'] as const) {
    const rest = others.filter((c) => verbOf(c) === otherVerb && otherVerb !== verb);
    if (rest.length > 0) effect += `; ${otherVerb} ${countsOf(rest)}`;
  }
  const kept = countParts(
    others.filter((c) => verbOf(c) === 'restored the earlier' && verb !== 'restored the earlier'),
  );
  if (keptEstimate?.before) {
    const estimateLabel = labelOf(keptEstimate.before);
    kept.push(`estimate${estimateLabel ? ` '${estimateLabel}'` : ''}${totalWords(totalBefore, totalAfter)}`);
  }
  if (kept.length > 0) effect += `; kept ${listed(kept)}`;
  return effect;
}

/** The estimate the action touched: the one of its rooms or lines, or the estimate itself. */
async function estimateOf(trx: Knex.Transaction, changes: RowChange[]): Promise<string | null> {
  const estimate = changes.find((c) => c.table === 'estimates');
  if (estimate) return estimate.id;
  const part = changes.find((c) => ESTIMATE_TABLES.has(c.table));
  if (!part) return null;
  const row = part.before ?? (await currentRow(trx, part));
  return typeof row.estimate_id === 'string' ? row.estimate_id : null;
}

async function currentRow(trx: Knex.Transaction, change: RowChange): Promise<Record<string, unknown>> {
  return (
    ((await trx(change.table).where({ id: change.id }).first()) as Record<string, unknown> | undefined) ?? {}
  );
}

/** The estimate's total now, or null when it is gone. */
async function estimateTotal(
  trx: Knex.Transaction,
  caller: Caller,
  estimateId: string,
): Promise<Money | null> {
  const exists = await trx('estimates').where({ id: estimateId, company_id: caller.companyId }).first('id');
  if (!exists) return null;
  const totals = totalsOf(await loadEstimate(trx, caller, estimateId));
  return { cents: totals.total_cents, currency: totals.currency };
}

/** ", total $1,133.08" for an estimate taken away or whose total stays, ", total $1,133.08 → $900.00" for one changed. */
function totalWords(before: Money | null, after: Money | null): string {
  if (!before) return '';
  if (!after || before.cents === after.cents) return `, total ${formatMoney(before.cents, before.currency)}`;
  return `, total ${formatMoney(before.cents, before.currency)} → ${formatMoney(after.cents, after.currency)}`;
}

/** "2 rooms", "1 drying log": how many rows of each table, in the order met. */
function countParts(changes: RowChange[]): string[] {
  const counts = new Map<UndoableTable, number>();
  for (const change of changes) counts.set(change.table, (counts.get(change.table) ?? 0) + 1);
  return [...counts].map(([table, n]) => `${n} ${NOUNS[table][n === 1 ? 0 : 1]}`);
}

const countsOf = (changes: RowChange[]): string => listed(countParts(changes));

/** "a", "a and b", "a, b and c". */
function listed(parts: string[]): string {
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0];
}

/** What people call a row: its label, title or name, or the start of its text. */
function labelOf(row: Record<string, unknown>): string | null {
  for (const column of ['label', 'title', 'name', 'description', 'customer_name', 'caption']) {
    if (typeof row[column] === 'string' && row[column]) return String(row[column]).slice(0, 60);
  }
  if (typeof row.text === 'string') return row.text.length > 40 ? `${row.text.slice(0, 40)}…` : row.text;
  return null;
}
