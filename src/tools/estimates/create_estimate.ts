import type { WriteHandler } from '../../platform/handler';
import { useEstimateCredit } from '../../platform/credits';
import { resolveJob } from '../jobs/job-records';
import { toEstimate } from './estimate-records';
import { estimateData } from './estimate-changes';
import { insertEstimate } from './new-estimate';
import { upsertRooms } from './rooms';
import { addLines } from './line-items';

export const create_estimate: WriteHandler<'create_estimate'> = async (ctx, { path, body }) => {
  const job = await resolveJob(ctx.db, ctx.caller, path.job_id);
  const credits = await useEstimateCredit(ctx.db, ctx.caller.companyId);
  const record = await insertEstimate(ctx, job, body);
  await upsertRooms(ctx, record, body.rooms ?? []);
  const { rejected } = await addLines(ctx, record, body.line_items ?? []);

  ctx.changes.add({
    kind: 'estimates',
    data: estimateData('estimate.created', record),
    summary: `Created ${record.estimate.label} on #${job.job_number}`,
    job: { id: job.id, job_number: job.job_number },
    recordId: record.estimate.id,
  });
  return { estimate: toEstimate(record), credits, rejected_lines: rejected };
};
