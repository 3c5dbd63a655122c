import { lockedJob, type BodyOf, type WriteHandler } from '../tool';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { findTeammate } from '../../domain/company/lookups';
import { jobRefOf } from '../../domain/jobs/job-records';
import { assigneesOf } from '../../domain/people/assignees';

/**
 * `person`, or its deprecated old name `teammate` (the spec requires one): both sent must say the
 * same, or which one is meant is not known.
 */
function personOf(body: BodyOf<'assign_job'>): string {
  const { person, teammate } = body;
  if (
    person !== undefined &&
    teammate !== undefined &&
    person.trim().toLowerCase() !== teammate.trim().toLowerCase()
  )
    throw new ApiError(
      422,
      'ambiguous_teammate',
      `person "${person}" and teammate (its old name) "${teammate}" differ; send person alone.`,
      {
        errors: [
          { path: '/body/person', message: `is "${person}"` },
          { path: '/body/teammate', message: `is "${teammate}", the old name of person; leave it out` },
        ],
      },
    );
  return (person ?? teammate)!;
}

/** Assigning someone already assigned changes nothing. */
export const assign_job: WriteHandler<'assign_job'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const teammate = await findTeammate(db, caller.companyId, personOf(body));
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
