/** Undo: each key takes back its own changes, newest first, only while nobody changed them since. */
import { newId } from '../src/platform/ids';
import { RecordedWrites } from '../src/platform/undo';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from './support/app';

let t: TestApp;
let co: TestCompany;

async function createJob(key: string, name: string) {
  return (await as(t, key).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: name, customer_phone: '555-0100', assignee: 'Sam Okafor' }).expect(201)).body;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('undo_my_last_action', () => {
  it('takes back create_job completely, then the one before, then says nothing is left', async () => {
    const fresh = await createCompany(t);
    const first = await createJob(fresh.writeKey, 'Undo First');
    const second = await createJob(fresh.writeKey, 'Undo Second');

    const undone = await as(t, fresh.writeKey).post('/api/v1/undo').send({}).expect(200);
    expect(undone.body.undone).toMatchObject({ tool: 'create_job', summary: `Created job #${second.job_number} Undo Second` });
    await as(t, fresh.readKey).get(`/api/v1/jobs/${second.id}`).expect(404);
    expect(await t.db('job_contacts').where({ job_id: second.id }).first()).toBeUndefined();
    expect(await t.db('job_assignees').where({ job_id: second.id }).first()).toBeUndefined();
    expect(await t.db('contacts').where({ id: second.people[0].id }).first()).toBeUndefined();
    expect((await as(t, fresh.readKey).get('/api/v1/jobs?q=Undo').expect(200)).body.data.map((j: { id: string }) => j.id)).toEqual([first.id]);

    const feed = (await as(t, fresh.readKey).get('/api/v1/changes').expect(200)).body.data;
    expect(feed.at(-1)).toMatchObject({ action: 'action.undone', summary: `Undid: Created job #${second.job_number} Undo Second`, person: { name: 'Avery Stone' } });

    await as(t, fresh.writeKey).post('/api/v1/undo').expect(200);
    await as(t, fresh.readKey).get(`/api/v1/jobs/${first.id}`).expect(404);
    const nothing = await as(t, fresh.writeKey).post('/api/v1/undo').send({}).expect(409);
    expect(nothing.body.code).toBe('undo_not_possible');
  });

  it("takes back only the key's own actions", async () => {
    const other = await createCompany(t);
    await createJob(other.writeKey, 'Not yours');
    const res = await as(t, other.otherWriteKey).post('/api/v1/undo').send({}).expect(409);
    expect(res.body.code).toBe('undo_not_possible');
    expect((await as(t, other.readKey).get('/api/v1/jobs').expect(200)).body.data).toHaveLength(1);
  });

  it('needs a write key', async () => {
    expect((await as(t, co.readKey).post('/api/v1/undo').send({}).expect(403)).body.code).toBe('write_key_required');
  });

  it('is refused when someone else changed the record since, and leaves everything as it was', async () => {
    const job = await createJob(co.writeKey, 'Changed Since');
    // Another person's write, made the way every write tool makes it.
    await t.db.transaction(async (trx) => {
      await new RecordedWrites(trx, co.id).update('jobs', job.id, { carrier: 'Allstate' });
    });
    const res = await as(t, co.writeKey).post('/api/v1/undo').send({}).expect(409);
    expect(res.body.code).toBe('undo_not_possible');
    const still = await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200);
    expect(still.body).toMatchObject({ assignees: [{ name: 'Sam Okafor' }], people: [{ name: 'Changed Since' }], claim: { carrier: 'Allstate' } });
  });

  it('is refused when other records now depend on it, with nothing half undone', async () => {
    const fresh = await createCompany(t);
    const job = await createJob(fresh.writeKey, 'Has Notes');
    await t.db('notes').insert({ id: newId('note'), company_id: fresh.id, job_id: job.id, author_id: fresh.people[1].id, text: 'Depends on the job' });
    const res = await as(t, fresh.writeKey).post('/api/v1/undo').send({}).expect(409);
    expect(res.body.code).toBe('undo_not_possible');
    const still = await as(t, fresh.readKey).get(`/api/v1/jobs/${job.id}`).expect(200);
    expect(still.body).toMatchObject({ people: [{ name: 'Has Notes' }], assignees: [{ name: 'Sam Okafor' }] });
  });

  it('is idempotent with an operation_id', async () => {
    const fresh = await createCompany(t);
    await createJob(fresh.writeKey, 'Once');
    await createJob(fresh.writeKey, 'Twice');
    const operationId = opId();
    const first = await as(t, fresh.writeKey).post('/api/v1/undo').send({ operation_id: operationId }).expect(200);
    const replay = await as(t, fresh.writeKey).post('/api/v1/undo').send({ operation_id: operationId }).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await as(t, fresh.readKey).get('/api/v1/jobs').expect(200)).body.data.map((j: { title: string }) => j.title)).toEqual(['Once']);
  });
});
