import { lockedJob, type WriteHandler } from '../tool';
import { useEstimateCredit } from '../../platform/credits';
import { toEstimate } from '../../domain/estimates/estimate-records';
import { estimateData } from '../../domain/estimates/estimate-changes';
import { insertEstimate } from '../../domain/estimates/new-estimate';
import { upsertRooms } from '../../domain/estimates/rooms';
import { addLines, type RejectedLine } from '../../domain/estimates/line-items';
import { ApiError } from '../../platform/errors';

export const create_estimate: WriteHandler<'create_estimate'> = async (ctx, { body }) => {
  const job = lockedJob(ctx);
  const credits = await useEstimateCredit(ctx);
  const record = await insertEstimate(ctx, job, body);
  await upsertRooms(ctx, record, body.rooms ?? []);
  const { added, rejected } = await addLines(ctx, record, body.line_items ?? []);
  // Nothing of the request could be kept: refuse it, so that no empty estimate uses a credit.
  if (rejected.length > 0 && added.length === 0 && (body.rooms ?? []).length === 0)
    throw allRejected(rejected);

  ctx.changes.add(
    {
      kind: 'estimates',
      data: estimateData('estimate.created', record),
      summary: `Created ${record.estimate.label} on #${job.job_number}`,
      job: { id: job.id, job_number: job.job_number },
      recordId: record.estimate.id,
    },
    { undo: true },
  );
  return { rejected_count: rejected.length, estimate: toEstimate(record), credits, rejected_lines: rejected };
};

function allRejected(rejected: RejectedLine[]): ApiError {
  return new ApiError(
    422,
    'lines_rejected',
    `None of the ${rejected.length} line${rejected.length === 1 ? '' : 's'} could be added, so no estimate was made and no credit used: ${rejected.map((r) => `line ${r.index}: ${r.reason}`).join('; ')}`,
    {
      errors: rejected.map((r) => ({
        path: `/body/line_items/${r.index}`,
        message: r.near_matches?.length
          ? `${r.reason} (near matches: ${r.near_matches.map((m) => m.code).join(', ')})`
          : r.reason,
      })),
    },
  );
}
