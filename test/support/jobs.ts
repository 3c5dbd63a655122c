/**
 * Jobs as a test needs them: opened through create_job and read back through get_job, over HTTP,
 * typed by the contract's schemas.
 */
import type { components } from '../../sdk/src/schema';
import { as, opId, type TestApp } from './app';

export type CreatedJob = components['schemas']['CreatedJob'];
export type JobDetail = components['schemas']['JobDetail'];

/** The customer most tests open a job for. */
export const MARIA = { customer_name: 'Maria Alvarez', customer_phone: '(555) 201-3344' } as const;

/** Opens a job with the key (a write key) and the given create_job fields. */
export async function openJob(
  t: TestApp,
  key: string,
  fields: Record<string, unknown> = {},
): Promise<CreatedJob> {
  return (
    await as(t, key)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), ...fields })
      .expect(201)
  ).body;
}

/** get_job by id or number, expecting the job to be there. */
export async function readJob(t: TestApp, key: string, jobId: string): Promise<JobDetail> {
  return (await as(t, key).get(`/api/v1/jobs/${jobId}`).expect(200)).body;
}
