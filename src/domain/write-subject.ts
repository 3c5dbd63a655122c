/**
 * What a write is about, locked before its handler runs (src/platform/locks.ts says why locks go
 * in this order): the job of `{job_id}`, read whole in the same statement so that the handler
 * uses the job the lock found, the job of the form of `{form_id}` (so that a void and a signing
 * of the form run one after the other), or the estimate of `{estimate_id}`. A job or form that
 * is not the company's is a 404 before anything else happens.
 */
import type { Knex } from 'knex';
import type { Caller } from '../platform/caller';
import { notFound } from '../platform/errors';
import { jobNumberOf } from '../platform/job-ref';
import { withNames, type JobRow } from './jobs/job-records';

export interface WriteSubject {
  /** The locked job of a `{job_id}` path; null for writes with none. */
  job: JobRow | null;
}

export async function lockSubject(
  trx: Knex.Transaction,
  caller: Caller,
  path: Record<string, unknown>,
): Promise<WriteSubject> {
  if (typeof path.job_id === 'string') return { job: await lockJob(trx, caller.companyId, path.job_id) };
  if (typeof path.form_id === 'string')
    return { job: await lockJobOfForm(trx, caller.companyId, path.form_id) };
  if (typeof path.estimate_id === 'string')
    await trx('estimates')
      .where({ company_id: caller.companyId, id: path.estimate_id })
      .forNoKeyUpdate()
      .select('id');
  return { job: null };
}

/** The job of the company's form, locked; 404 for a form of another company or none. */
async function lockJobOfForm(trx: Knex.Transaction, companyId: string, formId: string): Promise<JobRow> {
  const form = await trx('job_forms').where({ company_id: companyId, id: formId }).first('job_id');
  if (!form) throw notFound('form');
  return lockJob(trx, companyId, form.job_id);
}

/** Finds the company's job by id or number and locks it; 404 when it has none. */
async function lockJob(trx: Knex.Transaction, companyId: string, ref: string): Promise<JobRow> {
  const jobNumber = jobNumberOf(ref);
  const jobs = trx('jobs')
    .where({ company_id: companyId, ...(jobNumber === null ? { id: ref } : { job_number: jobNumber }) })
    .forNoKeyUpdate();
  const job = (await withNames(trx, jobs).first()) as JobRow | undefined;
  if (!job) throw notFound('job');
  return job;
}
