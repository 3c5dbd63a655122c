import { lockedJob, type WriteHandler } from '../tool';
import { ApiError } from '../../platform/errors';
import { jobRefOf, loadJobDetail } from '../../domain/jobs/job-records';

export const reopen_job: WriteHandler<'reopen_job'> = async (ctx) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  if (!job.cancelled_at)
    throw new ApiError(
      409,
      'invalid_state',
      `Job #${job.job_number} is not cancelled; only a cancelled job can be reopened.`,
    );

  await ctx.rows.update('jobs', job.id, { cancelled_at: null, cancel_reason: null });
  ctx.changes.add(
    {
      kind: 'changes',
      data: { action: 'job.reopened', status: { id: job.status_id, name: job.status_name } },
      summary: `Reopened #${job.job_number} in ${job.status_name}`,
      job: jobRefOf(job),
    },
    { undo: true },
  );
  return loadJobDetail(db, caller, job.id);
};
