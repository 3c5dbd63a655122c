/**
 * Lock order of every write: first the record the write is about (the job of `{job_id}`, the
 * estimate of `{estimate_id}`: src/domain/write-subject.ts), then whatever the handler changes
 * under it.
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

/** Locks a job by its id: undo takes the job of the action back first, as the write did. */
export async function lockJob(trx: Knex.Transaction, companyId: string, jobId: string): Promise<void> {
  await trx('jobs').where({ company_id: companyId, id: jobId }).forNoKeyUpdate().select('id');
}
