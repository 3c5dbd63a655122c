/** update_job_overview: changes only what is sent, records the fields, and refuses bad input, unknown names, read keys and other companies' jobs. */
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

describe('update_job_overview', () => {
  it('changes only what is sent, clears what is sent as null, and records the fields', async () => {
    const job = await newJob(co.writeKey, { carrier: 'State Farm', claim_number: 'SF-1' });
    const res = await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/overview`)
      .send({
        date_of_loss: '2026-11-18',
        cause_of_loss: 'Dishwasher supply line',
        water_category: 2,
        referral_source: 'plumber',
        adjuster: 'Priya Shah',
        claim_number: null,
      })
      .expect(200);
    expect(res.body).toMatchObject({
      date_of_loss: '2026-11-18',
      cause_of_loss: 'Dishwasher supply line',
      water_category: 2,
      referral_source: 'Plumber',
      claim: { carrier: 'State Farm', claim_number: null, adjuster: 'Priya Shah' },
    });
    const feed = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=changes`).expect(200))
      .body.data;
    expect(feed[0]).toMatchObject({
      action: 'job.overview_updated',
      summary: expect.stringContaining('claim_number'),
    });
    expect(
      (await as(t, co.readKey).get('/api/v1/jobs?q=priya').expect(200)).body.data.map(
        (j: { id: string }) => j.id,
      ),
    ).toContain(job.id);
  });

  it('refuses bad input and unknown names', async () => {
    const job = await newJob();
    // Changing nothing is not an error: the job comes back as it is (see test/pipeline/bad-inputs.test.ts).
    await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/overview`).send({}).expect(200);
    for (const body of [
      { water_category: 4 },
      { date_of_loss: 'last tuesday' },
      { title: null },
      { loss_type: 'volcano' },
      { colour: 'red' },
    ]) {
      expect(
        (await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/overview`).send(body).expect(400)).body.code,
      ).toBe('invalid_request');
    }
    const unknown = await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/overview`)
      .send({ referral_source: 'Carrier pigeon' })
      .expect(422);
    expect(unknown.body).toMatchObject({
      code: 'unknown_referral_source',
      valid_values: expect.arrayContaining(['Plumber']),
    });
    await as(t, co.readKey).patch(`/api/v1/jobs/${job.id}/overview`).send({ carrier: 'X' }).expect(403);
    const theirs = await newJob(other.writeKey);
    await as(t, co.writeKey).patch(`/api/v1/jobs/${theirs.id}/overview`).send({ carrier: 'X' }).expect(404);
  });
});
