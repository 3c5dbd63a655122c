import { lockedJob, type WriteHandler } from '../tool';
import { ApiError } from '../../platform/errors';
import { jobRefOf } from '../../domain/jobs/job-records';
import { loadJobForm } from '../../domain/forms/form-listing';

/**
 * Voids a form with its reason. The form's job is locked before (src/domain/write-subject.ts), as
 * a signing locks it, so that a void and a signature of the same form run one after the other:
 * the form read here is the one the void applies to.
 */
export const void_form: WriteHandler<'void_form'> = async (ctx, { path, body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  // The form's own row too, under its job's lock: a signing that got to it first has committed.
  await db('job_forms')
    .where({ company_id: caller.companyId, id: path.form_id })
    .forNoKeyUpdate()
    .select('id');
  const form = await loadJobForm(db, caller.companyId, path.form_id);
  if (form.voided)
    throw new ApiError(
      409,
      'invalid_state',
      `"${form.title}" on #${job.job_number} was voided already (${form.voided.at} by ${form.voided.by.name}: ${form.voided.reason}).`,
    );
  // A void is not taken back: signers were told the form no longer holds, and a signed form must
  // not come back to life under a key's undo. The row still changes through ctx.rows, so that its
  // version moves on and undoing the form's request is refused (the form changed since).
  ctx.rows.outOfUndo = true;
  await ctx.rows.update('job_forms', form.form_id, {
    state: 'voided',
    voided_at: db.fn.now(),
    voided_by: caller.personId,
    void_reason: body.reason,
  });
  ctx.changes.add({
    kind: 'forms',
    data: {
      action: 'form.voided',
      form_id: form.form_id,
      title: form.title,
      previous_state: form.state,
      reason: body.reason,
    },
    summary: `Voided "${form.title}" on #${job.job_number} (${form.state}): ${body.reason}`,
    job: jobRefOf(job),
    recordId: form.form_id,
  });
  return loadJobForm(db, caller.companyId, form.form_id);
};
