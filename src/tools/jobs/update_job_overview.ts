import { lockedJob, type BodyOf, type WriteHandler } from '../tool';
import { findReferralSource } from '../../domain/company/lookups';
import { jobRefOf, loadJobDetail, type JobRow } from '../../domain/jobs/job-records';
import { searchColumnsOf } from '../../domain/jobs/search-text';
import { requireProfileId } from '../../domain/company/program-profiles';

type Field = keyof Omit<BodyOf<'update_job_overview'>, 'operation_id'>;

/** Sends only the fields that really change; a no-op answers the job as it is and records nothing. */
export const update_job_overview: WriteHandler<'update_job_overview'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const { operation_id: _operationId, ...requested } = body;
  if (requested.referral_source)
    requested.referral_source = await findReferralSource(db, caller.companyId, requested.referral_source);
  if (typeof requested.program_profile_id === 'string')
    requested.program_profile_id = await requireProfileId(db, caller.companyId, requested.program_profile_id);

  const changed = (Object.keys(requested) as Field[]).filter(
    (field) => requested[field] !== job[field as keyof JobRow],
  );
  if (changed.length === 0) return loadJobDetail(db, caller, job.id);

  const patch = Object.fromEntries(changed.map((field) => [field, requested[field]]));
  const after = { ...job, ...patch } as JobRow;
  await ctx.rows.update('jobs', job.id, { ...patch, ...(await searchColumnsOf(db, job.id, after)) });
  const fields = changed.map((field) => ({
    field,
    before: job[field] ?? null,
    after: requested[field] ?? null,
  }));
  ctx.changes.add(
    {
      kind: 'changes',
      data: { action: 'job.overview_updated', fields },
      summary: `Updated #${job.job_number}: ${changed.join(', ')}`,
      job: jobRefOf(job),
    },
    { undo: true },
  );
  return loadJobDetail(db, caller, job.id);
};
