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
