/**
 * Lock order of every write: first the record the write is about (the job of `{job_id}`, the
 * estimate of `{estimate_id}`), then whatever the handler changes under it.
 *
 * Without it two writes on one job deadlocked: each insert of a child (a contact, a note's
 * earlier text) takes a key-share lock on its parent through the foreign key, and each then asked
 * to update that parent, which neither could while the other held its share. Taken first, the
 * parent's lock makes the second write wait for the first to commit, and then read what the first
 * one wrote, so that neither loses the other's change (a job's search text, a note's history).
 *
 * FOR NO KEY UPDATE is the lock an UPDATE of the row takes anyway; unlike FOR UPDATE it lets
 * children be inserted by the holder and read by others.
 */
import type { Knex } from 'knex';
import { jobNumberOf } from './job-ref';

interface Subject {
  param: string;
  rows: (trx: Knex.Transaction, companyId: string, ref: string) => Knex.QueryBuilder;
}

const SUBJECTS: Subject[] = [
  {
    param: 'job_id',
    rows: (trx, companyId, ref) => {
      const jobNumber = jobNumberOf(ref);
      return trx('jobs').where({ company_id: companyId, ...(jobNumber === null ? { id: ref } : { job_number: jobNumber }) });
    },
  },
  { param: 'estimate_id', rows: (trx, companyId, ref) => trx('estimates').where({ company_id: companyId, id: ref }) },
];

/** Locks the record named by the write's path, if any (an unknown id locks nothing: the handler answers 404). */
export async function lockSubject(trx: Knex.Transaction, companyId: string, path: Record<string, unknown>): Promise<void> {
  const subject = SUBJECTS.find(({ param }) => typeof path[param] === 'string');
  if (subject) await subject.rows(trx, companyId, path[subject.param] as string).forNoKeyUpdate().select('id');
}

/** Locks a job by its id: undo takes the job of the action back first, as the write did. */
export async function lockJob(trx: Knex.Transaction, companyId: string, jobId: string): Promise<void> {
  await trx('jobs').where({ company_id: companyId, id: jobId }).forNoKeyUpdate().select('id');
}
