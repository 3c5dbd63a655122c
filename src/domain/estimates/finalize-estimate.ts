import type { WriteCallContext } from '../../platform/handler';
import { ApiError } from '../../platform/errors';
import { loadEstimateOfJob, totalsOf, type EstimateRecord } from './estimate-records';
import type { ExportDocument } from '../exports/export-links';

/**
 * Marks an estimate final because a packet printing its `printedVersion` was delivered
 * (export_pdf). An estimate already final stays as it is, with no second entry; one changed since
 * it was printed is refused, as the PDF no longer shows it. Returns the estimate as it is now.
 */
export async function finalizeEstimate(
  ctx: WriteCallContext,
  estimateId: string,
  jobId: string,
  documents: ExportDocument[],
  printedVersion: number,
): Promise<EstimateRecord> {
  const record = await loadEstimateOfJob(ctx.db, ctx.caller, estimateId, jobId);
  if (record.estimate.status === 'final') return record;
  if (record.estimate.version !== printedVersion) {
    throw new ApiError(
      409,
      'invalid_state',
      `${record.estimate.label} changed while its packet was being downloaded; it stays a draft. Download the packet again to print and finalise the new version.`,
    );
  }
  Object.assign(
    record.estimate,
    await ctx.rows.update('estimates', estimateId, { status: 'final', finalized_at: ctx.db.fn.now() }),
  );
  const totals = totalsOf(record);
  ctx.changes.add({
    kind: 'estimates',
    data: {
      action: 'estimate.finalized',
      estimate_id: estimateId,
      total: { cents: totals.total_cents, currency: totals.currency },
      documents,
    },
    summary: `${record.estimate.label} on #${record.estimate.job_number}: made final (its PDF was downloaded)`,
    job: { id: jobId, job_number: record.estimate.job_number },
    recordId: estimateId,
  });
  return record;
}
