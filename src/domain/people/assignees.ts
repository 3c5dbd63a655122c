import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';

export async function assigneesOf(db: Knex, jobId: string): Promise<components['schemas']['Assignees']> {
  const assignees = await db('job_assignees as a')
    .join('people as p', 'p.id', 'a.person_id')
    .where('a.job_id', jobId)
    .orderBy('p.name')
    .select('p.id', 'p.name');
  return { job_id: jobId, assignees };
}

/** The teammates assigned to each of these jobs, in the order they were assigned (as find_jobs lists them). */
export async function assigneesByJob(
  db: Knex,
  jobIds: string[],
): Promise<Map<string, { id: string; name: string }[]>> {
  const rows = (await db('job_assignees as a')
    .join('people as p', 'p.id', 'a.person_id')
    .whereIn('a.job_id', jobIds)
    .orderBy(['a.created_at', 'a.id'])
    .select('a.job_id', 'p.id', 'p.name')) as { job_id: string; id: string; name: string }[];
  const byJob = new Map<string, { id: string; name: string }[]>();
  for (const row of rows)
    byJob.set(row.job_id, [...(byJob.get(row.job_id) ?? []), { id: row.id, name: row.name }]);
  return byJob;
}
