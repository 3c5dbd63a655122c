/** get_job: one job read by id, by number and by #number; other companies' jobs and ids of another kind answer as missing. */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;
let alvarez: { id: string; job_number: number };

async function find(query: string): Promise<{ id: string }[]> {
  return (await as(t, co.readKey).get(`/api/v1/jobs?${query}`).expect(200)).body.data;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  const body = {
    customer_name: 'Maria Alvarez',
    customer_phone: '(555) 201-3344',
    address_line1: '412 Birch Lane',
    city: 'Springfield',
    carrier: 'State Farm',
    claim_number: 'SF-22-118734',
    loss_type: 'water',
  };
  alvarez = (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), ...body })
      .expect(201)
  ).body;
});
afterAll(() => t.close());

describe('get_job', () => {
  it('reads a job by id, by number and by #number, the same way', async () => {
    const byId = await as(t, co.readKey).get(`/api/v1/jobs/${alvarez.id}`).expect(200);
    expect((await as(t, co.readKey).get(`/api/v1/jobs/${alvarez.job_number}`).expect(200)).body).toEqual(
      byId.body,
    );
    expect((await as(t, co.readKey).get(`/api/v1/jobs/%23${alvarez.job_number}`).expect(200)).body).toEqual(
      byId.body,
    );
    expect(byId.body).toMatchObject({
      title: 'Maria Alvarez - water',
      status: 'New',
      address: '412 Birch Lane, Springfield',
      claim: { claim_number: 'SF-22-118734', carrier: 'State Farm' },
      people: [{ name: 'Maria Alvarez', role: 'customer', phone: '(555) 201-3344' }],
      recent_notes: [],
      estimates: [],
    });
  });

  it('answers 404 for a missing job and for another company’s job, by id or number, the same way', async () => {
    const other = await createCompany(t);
    const theirs = (
      await as(t, other.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Secret' })
        .expect(201)
    ).body;
    const missing = await as(t, co.readKey).get('/api/v1/jobs/job_doesnotexist').expect(404);
    const foreign = await as(t, co.readKey).get(`/api/v1/jobs/${theirs.id}`).expect(404);
    const { request_id: _a, ...missingProblem } = missing.body;
    const { request_id: _b, ...foreignProblem } = foreign.body;
    expect(foreignProblem).toEqual(missingProblem);
    expect(await find('q=secret')).toEqual([]);
    await as(t, other.readKey).get('/api/v1/jobs/%23999').expect(404);
  });

  it('refuses an id of another kind', async () => {
    expect((await as(t, co.readKey).get('/api/v1/jobs/est_abc').expect(400)).body.errors[0].path).toBe(
      '/path/job_id',
    );
  });
});
