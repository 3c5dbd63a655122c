import type { WriteContext } from '../../platform/handler';
import type { EstimateRecord } from './estimate-records';

/**
 * Every change to an estimate's rooms or lines also touches the estimate (its version and
 * updated_at), so that undo sees the estimate as changed, and records one feed entry.
 */
export async function recordEstimateChange(ctx: WriteContext, record: EstimateRecord, action: string, summary: string): Promise<void> {
  Object.assign(record.estimate, await ctx.rows.update('estimates', record.estimate.id, {}));
  ctx.changes.add({
    kind: 'estimates',
    action,
    summary: `${record.estimate.label} on #${record.estimate.job_number}: ${summary}`,
    job: { id: record.estimate.job_id, job_number: record.estimate.job_number },
    recordId: record.estimate.id,
  });
}
