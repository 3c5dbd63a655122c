/** The SDK against the running service: typed calls, typed problems, the admin client. */
import { createAdminClient, createJobsClient, type Problem } from '../../sdk/src';
import { ADMIN_TOKEN, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('the SDK', () => {
  it('creates a job, reads it by id and by #number, and finds it', async () => {
    const jobs = createJobsClient({ baseUrl: `${t.url}/`, apiKey: co.writeKey });
    const created = await jobs.POST('/api/v1/jobs', {
      body: {
        operation_id: opId(),
        customer_name: 'Grace Whitfield',
        customer_phone: '217-555-0123',
        loss_type: 'mold',
      },
    });
    expect(created.response.status).toBe(201);
    const job = created.data!;
    expect(job.title).toBe('Grace Whitfield - mold');

    const byId = await jobs.GET('/api/v1/jobs/{job_id}', { params: { path: { job_id: job.id } } });
    const byNumber = await jobs.GET('/api/v1/jobs/{job_id}', {
      params: { path: { job_id: `#${job.job_number}` } },
    });
    expect(byNumber.data).toEqual(byId.data);

    const found = await jobs.GET('/api/v1/jobs', { params: { query: { q: '(217) 555 0123', limit: 5 } } });
    expect(found.data!.data.map((j) => j.id)).toEqual([job.id]);

    const feed = await jobs.GET('/api/v1/changes', { params: { query: { kind: 'changes' } } });
    expect(feed.data!.data.at(-1)).toMatchObject({ action: 'job.created', job: { id: job.id } });
    expect(typeof feed.data!.next_cursor).toBe('string');
  });

  it('returns problems as typed errors', async () => {
    const reader = createJobsClient({ baseUrl: t.url, apiKey: co.readKey });
    const missing = await reader.GET('/api/v1/jobs/{job_id}', { params: { path: { job_id: '#9999' } } });
    const notFound: Problem = missing.error!;
    expect(missing.response.status).toBe(404);
    expect(notFound.code).toBe('not_found');

    const refused = await reader.POST('/api/v1/jobs', { body: { operation_id: opId() } });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.code).toBe('write_key_required');

    const anonymous = createJobsClient({ baseUrl: t.url, apiKey: 'jms_not_a_real_key' });
    expect((await anonymous.GET('/api/v1/context')).error!.code).toBe('unauthorized');
  });

  it('drives the admin API', async () => {
    const adminApi = createAdminClient({ baseUrl: t.url, adminToken: ADMIN_TOKEN });
    const company = await adminApi.POST('/admin/v1/companies', { body: { name: 'SDK Restoration' } });
    const person = await adminApi.POST('/admin/v1/companies/{company_id}/team', {
      params: { path: { company_id: company.data!.id } },
      body: { name: 'Kim Lee', role: 'Estimator' },
    });
    const key = await adminApi.POST('/admin/v1/companies/{company_id}/keys', {
      params: { path: { company_id: company.data!.id } },
      body: { person_id: person.data!.id, scope: 'write' },
    });
    const context = await createJobsClient({ baseUrl: t.url, apiKey: key.data!.key }).GET('/api/v1/context');
    expect(context.data).toMatchObject({
      person: { name: 'Kim Lee' },
      company: { name: 'SDK Restoration' },
      key: { scope: 'write' },
    });
  });
});
