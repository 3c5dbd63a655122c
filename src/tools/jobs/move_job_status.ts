import { lockedJob, type WriteHandler } from '../tool';
import { ApiError } from '../../platform/errors';
import { findStatus } from '../../domain/company/lookups';
import { jobRefOf, loadJobDetail } from '../../domain/jobs/job-records';

export const move_job_status: WriteHandler<'move_job_status'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  if (job.cancelled_at)
    throw new ApiError(
      409,
      'invalid_state',
      `Job #${job.job_number} is cancelled; reopen it before moving it.`,
    );
  const target = await findStatus(db, caller.companyId, body.status);
  if (target.id === job.status_id) return loadJobDetail(db, caller, job.id);

  await ctx.rows.update('jobs', job.id, { status_id: target.id });
  ctx.changes.add(
    {
      kind: 'changes',
      data: {
        action: 'job.status_moved',
        from: { id: job.status_id, name: job.status_name },
        to: { id: target.id, name: target.name },
      },
      summary: `Moved #${job.job_number} from ${job.status_name} to ${target.name}`,
      job: jobRefOf(job),
    },
    { undo: true },
  );
  return loadJobDetail(db, caller, job.id);
};
