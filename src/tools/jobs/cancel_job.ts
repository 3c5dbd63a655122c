import { lockedJob, type WriteHandler } from '../tool';
import { ApiError } from '../../platform/errors';
import { jobRefOf, loadJobDetail } from '../../domain/jobs/job-records';

/** The job keeps its status (to return to on reopen); `cancelled_at` takes it off the board. */
export const cancel_job: WriteHandler<'cancel_job'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  if (job.cancelled_at)
    throw new ApiError(409, 'invalid_state', `Job #${job.job_number} is already cancelled.`);

  await ctx.rows.update('jobs', job.id, { cancelled_at: db.fn.now(), cancel_reason: body.reason ?? null });
  const reason = body.reason ? `: ${body.reason}` : '';
  ctx.changes.add(
    {
      kind: 'changes',
      data: { action: 'job.cancelled', reason: body.reason ?? null },
      summary: `Cancelled #${job.job_number}${reason}`,
      job: jobRefOf(job),
    },
    { undo: true },
  );
  return loadJobDetail(db, caller, job.id);
};
