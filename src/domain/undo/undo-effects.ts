/**
 * What taking an action back does, in words a person and a program can read, e.g. "deleted
 * estimate 'Water mitigation' on #5 with 2 rooms and 7 lines, total $1,133.08". Made from the
 * rows the action recorded, before they are put back.
 */
import type { Knex } from 'knex';
import { formatMoney } from '../../platform/money';
import type { DescribeUndo, RowChange, UndoableTable } from '../../platform/undo';
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
  job_rooms: ['room', 'rooms'],
};

const ESTIMATE_TABLES = new Set<UndoableTable>(['estimates', 'estimate_rooms', 'estimate_lines']);

type Verb = 'deleted' | 'restored the earlier' | 'put back';
const verbOf = (change: RowChange): Verb =>
  change.before === null ? 'deleted' : change.afterVersion === null ? 'put back' : 'restored the earlier';

/** Undo's words for the caller's actions: what is taken back, and an estimate's total before and after. */
export function undoEffects(caller: Caller): DescribeUndo {
  return async (trx, changes, jobNumber) => {
    const { record, effect, estimateId } = await describeChanges(trx, changes, jobNumber);
    const totalBefore = estimateId ? await estimateTotal(trx, caller, estimateId) : null;
    return {
      record,
      effect: async () =>
        effect + totalWords(totalBefore, estimateId ? await estimateTotal(trx, caller, estimateId) : null),
    };
  };
}

async function describeChanges(
  trx: Knex.Transaction,
  changes: RowChange[],
  jobNumber: number | null,
): Promise<{ record: { type: string; id: string }; effect: string; estimateId: string | null }> {
  const [primary] = changes;
  const row =
    primary.before ??
    ((await trx(primary.table).where({ id: primary.id }).first()) as Record<string, unknown> | undefined) ??
    {};
  const verb = verbOf(primary);
  const same = changes.filter((c) => c.table === primary.table && verbOf(c) === verb);
  // Every change to an estimate's rooms or lines also touches the estimate, and a contact made
  // for a job comes with its link to the job: neither is worth a word.
  const hasContacts = changes.some((c) => c.table === 'contacts');
  const others = changes.filter(
    (c) =>
      !same.includes(c) &&
      !(
        c.table === 'estimates' &&
        verbOf(c) === 'restored the earlier' &&
        ESTIMATE_TABLES.has(primary.table)
      ) &&
      !(c.table === 'job_contacts' && hasContacts),
  );
  const [one, many] = NOUNS[primary.table];
  const label = labelOf(row);
  let effect =
    same.length === 1 ? `${verb} ${one}${label ? ` '${label}'` : ''}` : `${verb} ${same.length} ${many}`;
  if (others.length > 0)
    effect += `${verb === 'deleted' && others.every((c) => verbOf(c) === 'deleted') ? ' with' : ' and'} ${countsOf(others)}`;
  if (jobNumber !== null) effect += ` on #${jobNumber}`;
  const estimateId = ESTIMATE_TABLES.has(primary.table)
    ? primary.table === 'estimates'
      ? primary.id
      : String(row.estimate_id)
    : null;
  return { record: { type: NOUNS[primary.table][0], id: primary.id }, effect, estimateId };
}

/** The estimate's total now, or null when it is gone. */
async function estimateTotal(
  trx: Knex.Transaction,
  caller: Caller,
  estimateId: string,
): Promise<{ cents: number; currency: string } | null> {
  const exists = await trx('estimates').where({ id: estimateId, company_id: caller.companyId }).first('id');
  if (!exists) return null;
  const totals = totalsOf(await loadEstimate(trx, caller, estimateId));
  return { cents: totals.total_cents, currency: totals.currency };
}

/** ", total $1,133.08" for an estimate taken away, " (total $1,133.08 → $900.00)" for one changed. */
function totalWords(
  before: { cents: number; currency: string } | null,
  after: { cents: number; currency: string } | null,
): string {
  if (!before) return '';
  if (!after) return `, total ${formatMoney(before.cents, before.currency)}`;
  return before.cents === after.cents
    ? ''
    : ` (total ${formatMoney(before.cents, before.currency)} → ${formatMoney(after.cents, after.currency)})`;
}

function countsOf(changes: RowChange[]): string {
  const counts = new Map<string, number>();
  for (const change of changes) {
    const key = `${verbOf(change)}|${change.table}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const parts = [...counts].map(([key, n]) => {
    const [, table] = key.split('|') as [Verb, UndoableTable];
    return `${n} ${NOUNS[table][n === 1 ? 0 : 1]}`;
  });
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
