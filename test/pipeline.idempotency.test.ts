/** One write pipeline: replays, conflicts, and truly concurrent identical requests save once. */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from './support/app';

let t: TestApp;
let co: TestCompany;

const countJobs = async (companyId: string) => Number((await t.db('jobs').where({ company_id: companyId }).count('id as n').first())!.n);
const countChanges = async (companyId: string) => Number((await t.db('change_entries').where({ company_id: companyId }).count('seq as n').first())!.n);

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('operation_id', () => {
  it('replays the first answer and saves nothing twice; key order does not matter', async () => {
    const operationId = opId();
    const first = await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: operationId, customer_name: 'Maria Alvarez', city: 'Springfield' }).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const jobs = await countJobs(co.id);
    const changes = await countChanges(co.id);
    const again = await as(t, co.writeKey).post('/api/v1/jobs').send({ city: 'Springfield', customer_name: 'Maria Alvarez', operation_id: operationId }).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countJobs(co.id)).toBe(jobs);
    expect(await countChanges(co.id)).toBe(changes);
  });

  it('answers 409 operation_id_conflict for other details, and saves nothing', async () => {
    const operationId = opId();
    await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: operationId, customer_name: 'Tom Nguyen' }).expect(201);
    const jobs = await countJobs(co.id);
    const conflict = await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: operationId, customer_name: 'Tom Nguyen Jr' }).expect(409);
    expect(conflict.body).toMatchObject({ code: 'operation_id_conflict', status: 409 });
    expect(await countJobs(co.id)).toBe(jobs);
  });

  it('does not remember a write that failed', async () => {
    const operationId = opId();
    await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: operationId, assignee: 'Nobody' }).expect(422);
    const ok = await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: operationId, assignee: 'Sam Okafor' }).expect(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('belongs to one company: another company may use the same operation_id', async () => {
    const other = await createCompany(t);
    const operationId = opId();
    const mine = await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: operationId, customer_name: 'A' }).expect(201);
    const theirs = await as(t, other.writeKey).post('/api/v1/jobs').send({ operation_id: operationId, customer_name: 'B' }).expect(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('saves once when identical requests arrive at the same moment', async () => {
    const body = { operation_id: opId(), customer_name: 'Concurrent Carla', claim_number: 'CC-1' };
    const jobs = await countJobs(co.id);
    const answers = await Promise.all(Array.from({ length: 10 }, () => as(t, co.writeKey).post('/api/v1/jobs').send(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await countJobs(co.id)).toBe(jobs + 1);
    expect(Number((await t.db('change_entries').where({ company_id: co.id, job_id: answers[0].body.id }).count('seq as n').first())!.n)).toBe(1);
  });

  it('lets exactly one of concurrent conflicting requests win', async () => {
    const operationId = opId();
    const answers = await Promise.all(
      ['Ann', 'Bob', 'Cy', 'Dee'].map((name) => as(t, co.otherWriteKey).post('/api/v1/jobs').send({ operation_id: operationId, customer_name: name })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'operation_id_conflict')).toBe(true);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(3);
  });
});
