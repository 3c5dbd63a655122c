import type { WriteCallContext } from '../../platform/handler';
import type { ChangeAction, ChangeData } from '../../platform/changes';
import { totalsOf, type EstimateRecord, type EstimateRow } from './estimate-records';

type EstimateAction = Exclude<
  Extract<ChangeAction, `estimate.${string}`>,
  'estimate.finalized' | 'estimate.updated'
>;
/** The estimate's own fields update_estimate changes. */
export type EstimateField = 'label' | 'scope_summary';

/** An estimate entry's details: the estimate and its total once the change is made. */
export function estimateData(action: EstimateAction, record: EstimateRecord): ChangeData {
  const totals = totalsOf(record);
  return {
    action,
    estimate_id: record.estimate.id,
    total: { cents: totals.total_cents, currency: totals.currency },
  };
}

/**
 * Every change to an estimate's rooms or lines also touches the estimate (its version and
 * updated_at), so that undo sees the estimate as changed, and records one feed entry.
 */
export async function recordEstimateChange(
  ctx: WriteCallContext,
  record: EstimateRecord,
  action: EstimateAction,
  summary: string,
): Promise<void> {
  Object.assign(record.estimate, await ctx.rows.update('estimates', record.estimate.id, {}));
  addEntry(ctx, record, estimateData(action, record), summary);
}

/** The estimate's own fields changed: written, and recorded naming them. */
export async function recordEstimateUpdate(
  ctx: WriteCallContext,
  record: EstimateRecord,
  columns: Partial<Pick<EstimateRow, EstimateField>>,
): Promise<void> {
  Object.assign(record.estimate, await ctx.rows.update('estimates', record.estimate.id, columns));
  const fields = Object.keys(columns) as EstimateField[];
  const totals = totalsOf(record);
  const data: ChangeData = {
    action: 'estimate.updated',
    estimate_id: record.estimate.id,
    total: { cents: totals.total_cents, currency: totals.currency },
    fields,
  };
  addEntry(ctx, record, data, `${fields.map((field) => field.replace('_', ' ')).join(' and ')} changed`);
}

function addEntry(ctx: WriteCallContext, record: EstimateRecord, data: ChangeData, summary: string): void {
  ctx.changes.add(
    {
      kind: 'estimates',
      data,
      summary: `${record.estimate.label} on #${record.estimate.job_number}: ${summary}`,
      job: { id: record.estimate.job_id, job_number: record.estimate.job_number },
      recordId: record.estimate.id,
    },
    { undo: true },
  );
}
