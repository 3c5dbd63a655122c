import { lockedJob, type WriteHandler } from '../tool';
import { findTeammate } from '../../domain/company/lookups';
import { jobRefOf } from '../../domain/jobs/job-records';
import { assigneesOf } from '../../domain/people/assignees';

/** By name or id; a teammate who was not assigned changes nothing. */
export const unassign_job: WriteHandler<'unassign_job'> = async (ctx, { path }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const teammate = await findTeammate(db, caller.companyId, path.person);
  const assignment = await db('job_assignees').where({ job_id: job.id, person_id: teammate.id }).first('id');
  if (assignment) {
    await ctx.rows.remove('job_assignees', assignment.id);
    ctx.changes.add(
      {
        kind: 'changes',
        data: { action: 'job.unassigned', teammate: { id: teammate.id, name: teammate.name } },
        summary: `Took ${teammate.name} off #${job.job_number}`,
        job: jobRefOf(job),
        recordId: teammate.id,
      },
      { undo: true },
    );
  }
  return assigneesOf(db, job.id);
};
