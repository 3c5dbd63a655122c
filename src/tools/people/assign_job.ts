import { lockedJob, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { findTeammate } from '../../domain/company/lookups';
import { jobRefOf } from '../../domain/jobs/job-records';
import { assigneesOf } from '../../domain/people/assignees';

/** Assigning someone already assigned changes nothing. */
export const assign_job: WriteHandler<'assign_job'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const teammate = await findTeammate(db, caller.companyId, body.teammate);
  const already = await db('job_assignees').where({ job_id: job.id, person_id: teammate.id }).first('id');
  if (!already) {
    await ctx.rows.insert('job_assignees', { id: newId('asg'), job_id: job.id, person_id: teammate.id });
    ctx.changes.add(
      {
        kind: 'changes',
        data: { action: 'job.assigned', teammate: { id: teammate.id, name: teammate.name } },
        summary: `Assigned ${teammate.name} to #${job.job_number}`,
        job: jobRefOf(job),
        recordId: teammate.id,
      },
      { undo: true },
    );
  }
  return assigneesOf(db, job.id);
};
