import type { WriteContext } from '../../platform/handler';
import type { ChangeAction, ChangeData } from '../../platform/changes';
import { totalsOf, type EstimateRecord } from './estimate-records';

type EstimateAction = Exclude<Extract<ChangeAction, `estimate.${string}`>, 'estimate.finalized'>;

/** An estimate entry's details: the estimate and its total once the change is made. */
export function estimateData(action: EstimateAction, record: EstimateRecord): ChangeData {
  const totals = totalsOf(record);
  return { action, estimate_id: record.estimate.id, total: { cents: totals.total_cents, currency: totals.currency } };
}

/**
 * Every change to an estimate's rooms or lines also touches the estimate (its version and
 * updated_at), so that undo sees the estimate as changed, and records one feed entry.
 */
export async function recordEstimateChange(ctx: WriteContext, record: EstimateRecord, action: EstimateAction, summary: string): Promise<void> {
  Object.assign(record.estimate, await ctx.rows.update('estimates', record.estimate.id, {}));
  ctx.changes.add({
    kind: 'estimates',
    data: estimateData(action, record),
    summary: `${record.estimate.label} on #${record.estimate.job_number}: ${summary}`,
    job: { id: record.estimate.job_id, job_number: record.estimate.job_number },
    recordId: record.estimate.id,
  }, { undo: true });
}
