/**
 * Job numbers come from a sequence of the company's own, which never waits on another write. A
 * create that fails or is undone leaves its number unused.
 */
import type { Knex } from 'knex';

/** The name of the company's job number sequence, quoted. */
export const jobNumbers = (companyId: string) => `"job_numbers_${companyId.replace(/[^0-9A-Za-z_]/g, '')}"`;

/** The next job number, as an SQL expression to put in the job's insert. */
export function nextJobNumber(db: Knex, companyId: string): Knex.Raw {
  return db.raw('nextval(?::regclass)', [jobNumbers(companyId)]);
}

/** Moves the job numbers on, after jobs were loaded in bulk. */
export async function setLastJobNumber(db: Knex, companyId: string, value: number): Promise<void> {
  await db.raw(`select setval('${jobNumbers(companyId)}', ?)`, [value]);
}

export async function createJobNumbers(trx: Knex.Transaction, companyId: string): Promise<void> {
  await trx.raw(`create sequence ${jobNumbers(companyId)}`);
}
