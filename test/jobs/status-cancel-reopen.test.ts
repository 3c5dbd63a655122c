/** move_job_status, cancel_job and reopen_job: the board by name, the counts that follow, the activity, and refusals. */
import { as, createCompany, startApp, type TestApp, type TestCompany } from '../support/app';
import { MARIA, openJob } from '../support/jobs';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

const newJob = (key = co.writeKey, extra: Record<string, unknown> = {}) =>
  openJob(t, key, { ...MARIA, ...extra });

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

describe('move_job_status, cancel_job, reopen_job: the board', () => {
  it('moves by name in any case, lists the board on an unknown status, and counts follow', async () => {
    const company = await createCompany(t);
    const job = await newJob(company.writeKey);
    await newJob(company.writeKey);
    expect(
      (
        await as(t, company.writeKey)
          .post(`/api/v1/jobs/${job.id}/status`)
          .send({ status: 'drying' })
          .expect(200)
      ).body.status,
    ).toBe('Drying');
    const unknown = await as(t, company.writeKey)
      .post(`/api/v1/jobs/${job.id}/status`)
      .send({ status: 'Done-ish' })
      .expect(422);
    expect(unknown.body).toMatchObject({
      code: 'unknown_status',
      valid_values: ['New', 'Inspection', 'Mitigation', 'Drying', 'Rebuild', 'Invoicing', 'Closed'],
    });
    const counts = async () =>
      Object.fromEntries(
        (await as(t, company.readKey).get('/api/v1/job-statuses').expect(200)).body.data.map(
          (s: { name: string; open_jobs: number }) => [s.name, s.open_jobs],
        ),
      );
    expect(await counts()).toMatchObject({ New: 1, Drying: 1 });

    await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/reopen`).send({}).expect(409);
    const cancelled = await as(t, company.writeKey)
      .post(`/api/v1/jobs/${job.id}/cancel`)
      .send({ reason: 'Customer went with another contractor' })
      .expect(200);
    expect(cancelled.body).toMatchObject({
      status: 'Cancelled',
      cancellation: { reason: 'Customer went with another contractor', returns_to: 'Drying' },
    });
    expect(await counts()).toMatchObject({ New: 1, Drying: 0 });
    expect(
      (await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/cancel`).send({}).expect(409)).body.code,
    ).toBe('invalid_state');
    expect(
      (
        await as(t, company.writeKey)
          .post(`/api/v1/jobs/${job.id}/status`)
          .send({ status: 'New' })
          .expect(409)
      ).body.code,
    ).toBe('invalid_state');
    expect(
      (await as(t, company.readKey).get('/api/v1/jobs?status=cancelled').expect(200)).body.data.map(
        (j: { id: string }) => j.id,
      ),
    ).toEqual([job.id]);

    const reopened = await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/reopen`).expect(200);
    expect(reopened.body).toMatchObject({ status: 'Drying', cancellation: null });
    expect(await counts()).toMatchObject({ New: 1, Drying: 1 });
    const activity = (
      await as(t, company.readKey).get(`/api/v1/jobs/${job.id}/activity`).expect(200)
    ).body.data.map((e: { summary: string }) => e.summary);
    expect(activity.slice(0, 3)).toEqual([
      `Reopened #${job.job_number} in Drying`,
      `Cancelled #${job.job_number}: Customer went with another contractor`,
      `Moved #${job.job_number} from New to Drying`,
    ]);
  });

  it('refuses a read key and another company', async () => {
    const job = await newJob();
    const theirs = await newJob(other.writeKey);
    await as(t, co.readKey).post(`/api/v1/jobs/${job.id}/cancel`).send({}).expect(403);
    await as(t, co.readKey).post(`/api/v1/jobs/${job.id}/status`).send({ status: 'New' }).expect(403);
    await as(t, co.writeKey).post(`/api/v1/jobs/${theirs.id}/cancel`).send({}).expect(404);
    await as(t, co.writeKey).post(`/api/v1/jobs/${theirs.id}/reopen`).send({}).expect(404);
    await as(t, co.writeKey).post(`/api/v1/jobs/${theirs.id}/status`).send({ status: 'New' }).expect(404);
  });
});
