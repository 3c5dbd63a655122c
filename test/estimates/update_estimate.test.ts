/** update_estimate: the estimate's label and scope summary, replays, the feed, undo and refusals. */
import {
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';

let t: TestApp;
let co: TestCompany;

async function newJob(region: string): Promise<string> {
  const res = await as(t, co.writeKey)
    .post('/api/v1/jobs')
    .send({ operation_id: opId(), customer_name: 'Maria Alvarez', region })
    .expect(201);
  return res.body.id;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 5 });
});
afterAll(() => t.close());

describe('update_estimate', () => {
  it('names an estimate and sets its scope summary, records what changed, and undo takes it back', async () => {
    const jobId = await newJob('IL');
    const estimate = (
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${jobId}/estimates`)
        .send({ operation_id: opId() })
        .expect(201)
    ).body.estimate;
    expect(estimate).toMatchObject({ label: 'Estimate 1', scope_summary: null });
    const path = `/api/v1/estimates/${estimate.id}`;
    const operationId = opId();
    const body = {
      operation_id: operationId,
      label: 'Water mitigation',
      scope_summary: 'Category 2 water from a dishwasher line; kitchen and hall.',
    };
    const updated = await as(t, co.writeKey).patch(path).send(body).expect(200);
    expect(updated.body).toMatchObject({
      id: estimate.id,
      label: 'Water mitigation',
      scope_summary: body.scope_summary,
      status: 'draft',
    });
    expect(updated.body.totals).toEqual(estimate.totals);

    // Replayed: the same answer, nothing new; the same operation_id with other values: 409.
    const replay = await as(t, co.writeKey).patch(path).send(body).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(updated.body);
    expect(
      (
        await as(t, co.writeKey)
          .patch(path)
          .send({ ...body, label: 'Other' })
          .expect(409)
      ).body.code,
    ).toBe('operation_id_conflict');

    await feedSettled(t);
    const entries = async () =>
      (await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/activity?kind=estimates`).expect(200)).body
        .data as { action: string; summary: string; data: { fields?: string[] } }[];
    const [entry] = await entries();
    expect(entry).toMatchObject({
      action: 'estimate.updated',
      data: { action: 'estimate.updated', estimate_id: estimate.id, fields: ['label', 'scope_summary'] },
    });
    expect(entry.summary).toBe(
      `Water mitigation on #${estimate.job.job_number}: label and scope summary changed`,
    );

    // Nothing to change: the estimate as it is, no entry. null clears the summary.
    await as(t, co.writeKey)
      .patch(path)
      .send({ operation_id: opId(), label: 'Water mitigation' })
      .expect(200);
    expect(await entries()).toHaveLength(2);
    expect(
      (await as(t, co.writeKey).patch(path).send({ operation_id: opId(), scope_summary: null }).expect(200))
        .body.scope_summary,
    ).toBeNull();
    await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await as(t, co.readKey).get(path).expect(200)).body.scope_summary).toBe(body.scope_summary);
  });

  it("refuses a read key, another company's estimate and bad values, changing nothing", async () => {
    const other = await createCompany(t);
    const jobId = await newJob('IL');
    const estimate = (
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${jobId}/estimates`)
        .send({ operation_id: opId() })
        .expect(201)
    ).body.estimate;
    const path = `/api/v1/estimates/${estimate.id}`;
    expect((await as(t, co.readKey).patch(path).send({ label: 'Mine' }).expect(403)).body.code).toBe(
      'write_key_required',
    );
    expect((await as(t, other.writeKey).patch(path).send({ label: 'Mine' }).expect(404)).body.code).toBe(
      'not_found',
    );
    await as(t, co.writeKey).patch('/api/v1/estimates/est_doesnotexist0').send({ label: 'Mine' }).expect(404);
    for (const bad of [
      { label: '' },
      { label: 7 },
      { label: 'x'.repeat(101) },
      { scope_summary: 'x'.repeat(5001) },
      { status: 'final' },
    ]) {
      expect((await as(t, co.writeKey).patch(path).send(bad).expect(400)).body.code).toBe('invalid_request');
    }
    expect((await as(t, co.readKey).get(path).expect(200)).body).toMatchObject({
      label: 'Estimate 1',
      scope_summary: null,
      status: 'draft',
    });
  });
});
