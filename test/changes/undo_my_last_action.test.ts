/**
 * Undo (DESIGN §5): each key takes back its own last action, then the one before, while nobody
 * changed the record since and nothing depends on it; otherwise 409 undo_not_possible, with
 * nothing half undone.
 */
import type { Response } from 'supertest';
import { newId } from '../../src/platform/ids';
import { RecordedWrites } from '../../src/platform/undo';
import { as, createCompany, feedSettled, opId, startApp, type TestApp } from '../support/app';
import type { components } from '../../sdk/src/schema';

let t: TestApp;

interface JobDetail {
  id: string;
  job_number: number;
  title: string;
  people: { id: string; name: string }[];
  assignees: { id: string; name: string }[];
}

type Entry = components['schemas']['ChangeEntry'];

async function feed(key: string): Promise<Entry[]> {
  await feedSettled(t);
  return (await as(t, key).get('/api/v1/changes?limit=100').expect(200)).body.data as Entry[];
}

async function createJob(key: string, name: string): Promise<JobDetail> {
  return (
    await as(t, key)
      .post('/api/v1/jobs')
      .send({
        operation_id: opId(),
        customer_name: name,
        customer_phone: '555-0100',
        customer_email: 'c@example.com',
        assignee: 'Sam Okafor',
      })
      .expect(201)
  ).body;
}

const undo = (key: string, body: Record<string, unknown> = {}) =>
  as(t, key)
    .post('/api/v1/undo')
    .send({ operation_id: opId(), ...body });

function expectUndoRefused(res: Response): void {
  expect(res.status).toBe(409);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    code: 'undo_not_possible',
    status: 409,
    type: 'https://jms.dev/problems/undo_not_possible',
  });
  expect(res.body.detail.length).toBeGreaterThan(0);
}

/** Every row the job consists of, straight from the database. */
async function rowsOf(job: JobDetail) {
  const jobRow = await t.db('jobs').where({ id: job.id }).first();
  const links = await t.db('job_contacts').where({ job_id: job.id }).orderBy('id');
  const contacts = await t
    .db('contacts')
    .whereIn(
      'id',
      job.people.map((p) => p.id),
    )
    .orderBy('id');
  const assignees = await t.db('job_assignees').where({ job_id: job.id }).orderBy('id');
  return { jobRow, links, contacts, assignees };
}

async function jobIds(key: string, q?: string): Promise<string[]> {
  const res = await as(t, key)
    .get(`/api/v1/jobs${q ? `?q=${encodeURIComponent(q)}` : ''}`)
    .expect(200);
  return (res.body.data as { id: string }[]).map((j) => j.id);
}

async function pendingUndo(companyId: string): Promise<number> {
  const [row] = await t
    .db('undo_actions')
    .where({ company_id: companyId })
    .whereNull('undone_at')
    .count<{ n: string | number }[]>('* as n');
  return Number(row.n);
}

beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('undo after create_job', () => {
  it('removes the job and its contact and assignee rows, and says what it took back', async () => {
    const co = await createCompany(t);
    const keep = await createJob(co.writeKey, 'Keep Kara');
    const job = await createJob(co.writeKey, 'Undo Ulla');
    expect(job.people).toHaveLength(1);
    expect(job.assignees).toHaveLength(1);
    const before = await rowsOf(job);
    expect(before.jobRow).toBeDefined();
    expect([before.links.length, before.contacts.length, before.assignees.length]).toEqual([1, 1, 1]);
    const created = (await feed(co.readKey)).find((e) => e.job?.id === job.id && e.action === 'job.created');
    expect(created).toBeDefined();

    const res = await undo(co.writeKey).expect(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body).toEqual({
      preview: false,
      not_undoable: null,
      undone: {
        tool: 'create_job',
        summary: `Created job #${job.job_number} Undo Ulla`,
        at: expect.any(String),
        record: { type: 'job', id: job.id },
        job: { id: job.id, job_number: job.job_number },
        effect: `deleted job 'Undo Ulla' with 1 contact and 1 assignment on #${job.job_number}`,
        credits_refunded: 0,
      },
    });
    // `at` is when the change had been made: the moment of its feed entry.
    expect(res.body.undone.at).toBe(created?.at);

    await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(404);
    await as(t, co.readKey).get(`/api/v1/jobs/${job.job_number}`).expect(404);
    expect(await jobIds(co.readKey)).toEqual([keep.id]);
    expect(await jobIds(co.readKey, 'Undo Ulla')).toEqual([]);
    expect(await jobIds(co.readKey, '555-0100')).toEqual([keep.id]);
    expect(await rowsOf(job)).toEqual({ jobRow: undefined, links: [], contacts: [], assignees: [] });
    // The job kept is untouched.
    expect((await as(t, co.readKey).get(`/api/v1/jobs/${keep.id}`).expect(200)).body).toMatchObject({
      people: [{ name: 'Keep Kara' }],
      assignees: [{ name: 'Sam Okafor' }],
    });
  });

  it('appears in the change feed as action.undone, by the key owner, after the entry it takes back', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.otherWriteKey, 'Feed Fern');
    await undo(co.otherWriteKey).expect(200);
    const entries = await feed(co.readKey);
    expect(entries.map((e) => e.action)).toEqual(['job.created', 'action.undone']);
    expect(entries[1]).toEqual({
      id: expect.any(String),
      kind: 'changes',
      action: 'action.undone',
      summary: `Undid: Created job #${job.job_number} Feed Fern`,
      job: { id: job.id, job_number: job.job_number },
      person: { id: co.people[1].id, name: 'Dana Brooks' },
      via_key: true,
      via_client: null,
      at: expect.any(String),
      at_local: expect.any(String),
      data: { action: 'action.undone', undone: { id: entries[0].id, action: 'job.created' } },
    });
    expect(Date.parse(entries[1].at)).toBeGreaterThanOrEqual(Date.parse(entries[0].at));
    // The history stays: the creation entry is not removed by the undo.
    expect(entries[0]).toMatchObject({ action: 'job.created', job: { id: job.id } });
  });

  it('goes one further back on each call, then answers 409 undo_not_possible', async () => {
    const co = await createCompany(t);
    const first = await createJob(co.writeKey, 'One Oona');
    const second = await createJob(co.writeKey, 'Two Tove');
    const third = await createJob(co.writeKey, 'Three Thea');

    expect((await undo(co.writeKey).expect(200)).body.undone.summary).toBe(
      `Created job #${third.job_number} Three Thea`,
    );
    expect((await jobIds(co.readKey)).sort()).toEqual([first.id, second.id].sort());
    expect((await undo(co.writeKey).expect(200)).body.undone.summary).toBe(
      `Created job #${second.job_number} Two Tove`,
    );
    expect(await jobIds(co.readKey)).toEqual([first.id]);
    expect((await undo(co.writeKey).expect(200)).body.undone.summary).toBe(
      `Created job #${first.job_number} One Oona`,
    );
    expect(await jobIds(co.readKey)).toEqual([]);

    const before = await feed(co.readKey);
    expectUndoRefused(await undo(co.writeKey));
    expectUndoRefused(await undo(co.writeKey, { operation_id: opId() }));
    // A refused undo writes nothing to the feed.
    expect(await feed(co.readKey)).toEqual(before);
    expect(before.map((e) => e.action)).toEqual([
      'job.created',
      'job.created',
      'job.created',
      'action.undone',
      'action.undone',
      'action.undone',
    ]);
    // Each undo names the entry it took back, newest first.
    expect(before.slice(3).map((e) => e.data)).toEqual(
      [2, 1, 0].map((i) => ({
        action: 'action.undone',
        undone: { id: before[i].id, action: 'job.created' },
      })),
    );

    // An undone create leaves its number unused; a new job gets the next one.
    const again = await createJob(co.writeKey, 'Four Fia');
    expect(again.job_number).toBe(third.job_number + 1);
  });

  it('is not itself undone by the next undo (undo is not an undoable action)', async () => {
    const co = await createCompany(t);
    const a = await createJob(co.writeKey, 'Stay Undone A');
    const b = await createJob(co.writeKey, 'Stay Undone B');
    await undo(co.writeKey).expect(200);
    // The next undo takes back the create before it, it does not bring B back.
    const next = await undo(co.writeKey).expect(200);
    expect(next.body.undone.summary).toBe(`Created job #${a.job_number} Stay Undone A`);
    await as(t, co.readKey).get(`/api/v1/jobs/${b.id}`).expect(404);
    await as(t, co.readKey).get(`/api/v1/jobs/${a.id}`).expect(404);
  });

  it('a create resent after its undo answers 409 operation_undone, creates nothing, and a new operation_id creates it again', async () => {
    const co = await createCompany(t);
    const body = { operation_id: opId(), customer_name: 'Replay Rae' };
    await as(t, co.writeKey).post('/api/v1/jobs').send(body).expect(201);
    await undo(co.writeKey).expect(200);
    for (const key of [co.writeKey, co.otherWriteKey]) {
      const resent = await as(t, key).post('/api/v1/jobs').send(body).expect(409);
      expect(resent.body).toMatchObject({
        code: 'operation_undone',
        detail: expect.stringContaining('new operation_id'),
      });
      expect(resent.headers['idempotent-replayed']).toBeUndefined();
    }
    // Other details under that operation_id are still a conflict, not an undone operation.
    expect(
      (
        await as(t, co.writeKey)
          .post('/api/v1/jobs')
          .send({ ...body, customer_name: 'Other' })
          .expect(409)
      ).body.code,
    ).toBe('operation_id_conflict');
    expect(await jobIds(co.readKey)).toEqual([]);
    const again = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ ...body, operation_id: opId() })
      .expect(201);
    expect(await jobIds(co.readKey)).toEqual([again.body.id]);
  });

  it('over MCP too, a note resent after its undo is refused as operation_undone', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Mcp Undo');
    const body = { operation_id: opId(), text: 'Water shut off at the main' };
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/notes`).send(body).expect(201);
    await undo(co.writeKey).expect(200);
    const resent = await t.http
      .post('/mcp')
      .set('Authorization', `Bearer ${co.writeKey}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'add_note', arguments: { job_id: job.id, ...body } },
      })
      .expect(200);
    expect(resent.body.result.isError).toBe(true);
    expect(JSON.parse(resent.body.result.content[0].text)).toMatchObject({
      status: 409,
      code: 'operation_undone',
    });
  });

  it('with an operation_id, a repeated undo is replayed and takes back nothing more', async () => {
    const co = await createCompany(t);
    const once = await createJob(co.writeKey, 'Once Oda');
    await createJob(co.writeKey, 'Twice Tam');
    const operationId = opId();
    const first = await undo(co.writeKey, { operation_id: operationId }).expect(200);
    const replay = await undo(co.writeKey, { operation_id: operationId }).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await jobIds(co.readKey)).toEqual([once.id]);
    expect((await feed(co.readKey)).filter((e) => e.action === 'action.undone')).toHaveLength(1);
  });

  it('two undos at once take back two different actions', async () => {
    const co = await createCompany(t);
    const keep = await createJob(co.writeKey, 'Parallel Keep');
    await createJob(co.writeKey, 'Parallel One');
    await createJob(co.writeKey, 'Parallel Two');
    const answers = await Promise.all([undo(co.writeKey), undo(co.writeKey)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => a.body.undone.summary as string).sort()).toEqual([
      'Created job #2 Parallel One',
      'Created job #3 Parallel Two',
    ]);
    expect(await jobIds(co.readKey)).toEqual([keep.id]);
  });
});

describe('whose actions', () => {
  it('a key takes back only its own actions', async () => {
    const co = await createCompany(t);
    const mine = await createJob(co.writeKey, 'Avery Job');
    // Dana's key has done nothing: nothing to undo, and Avery's job stays.
    expectUndoRefused(await undo(co.otherWriteKey));
    await as(t, co.readKey).get(`/api/v1/jobs/${mine.id}`).expect(200);

    // Interleaved actions of two keys: each undo takes back the caller's own newest action.
    const danas = await createJob(co.otherWriteKey, 'Dana Job');
    const averys = await createJob(co.writeKey, 'Avery Job 2');
    expect((await undo(co.otherWriteKey).expect(200)).body.undone.summary).toBe(
      `Created job #${danas.job_number} Dana Job`,
    );
    expect((await jobIds(co.readKey)).sort()).toEqual([mine.id, averys.id].sort());
    expectUndoRefused(await undo(co.otherWriteKey));
    expect((await undo(co.writeKey).expect(200)).body.undone.summary).toBe(
      `Created job #${averys.job_number} Avery Job 2`,
    );
    expect(await jobIds(co.readKey)).toEqual([mine.id]);
  });

  it("another company's key never reaches this company's actions", async () => {
    const co = await createCompany(t);
    const other = await createCompany(t);
    const job = await createJob(co.writeKey, 'Not Theirs');
    expectUndoRefused(await undo(other.writeKey));
    await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200);
  });

  it('a read key gets 403 write_key_required and nothing is undone', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Read Only Ro');
    const res = await undo(co.readKey);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'write_key_required', status: 403 });
    await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200);
    expect(await pendingUndo(co.id)).toBe(1);
  });
});

describe('undo refused', () => {
  it('when someone else changed the record since, with nothing half undone', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Changed Since');
    const before = await rowsOf(job);
    // Another person's change, made the way every write tool makes it (it bumps the version).
    await t.db.transaction(async (trx) => {
      const changed = await new RecordedWrites(trx, co.id).update<{ id: string; version: number }>(
        'jobs',
        job.id,
        { carrier: 'Allstate' },
      );
      expect(changed.version).toBe(before.jobRow.version + 1);
    });
    const changed = await rowsOf(job);
    const feedBefore = await feed(co.readKey);

    const res = await undo(co.writeKey);
    expectUndoRefused(res);
    expect(res.body.detail).toMatch(/changed/);
    // Every row is as it was after the other person's change: the assignee, contact and link
    // rows (taken back before the job row in the same undo) are all still there.
    expect(await rowsOf(job)).toEqual(changed);
    expect(changed.jobRow.carrier).toBe('Allstate');
    expect({
      ...changed,
      jobRow: { ...changed.jobRow, carrier: null, version: 1, updated_at: null },
    }).toEqual({ ...before, jobRow: { ...before.jobRow, updated_at: null } });
    const detail = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200)).body;
    expect(detail).toMatchObject({
      people: [{ name: 'Changed Since' }],
      assignees: [{ name: 'Sam Okafor' }],
      claim: { carrier: 'Allstate' },
    });
    expect(await pendingUndo(co.id)).toBe(1);
    expect(await feed(co.readKey)).toEqual(feedBefore);
    // It stays refused: trying again changes nothing either.
    expectUndoRefused(await undo(co.writeKey));
    expect(await rowsOf(job)).toEqual(changed);
  });

  it('when a contact of the job was changed since', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Contact Changed');
    await t.db.transaction(async (trx) => {
      await new RecordedWrites(trx, co.id).update('contacts', job.people[0].id, { email: 'new@example.com' });
    });
    const changed = await rowsOf(job);
    expectUndoRefused(await undo(co.writeKey));
    expect(await rowsOf(job)).toEqual(changed);
  });

  it('when other records now depend on the job, with nothing half undone', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Has Notes');
    const noteId = newId('note');
    await t.db('notes').insert({
      id: noteId,
      company_id: co.id,
      job_id: job.id,
      author_id: co.people[1].id,
      text: 'Depends on the job',
    });
    const before = await rowsOf(job);
    const feedBefore = await feed(co.readKey);

    const res = await undo(co.writeKey);
    expectUndoRefused(res);
    expect(res.body.detail).toMatch(/other records/);
    expect(await rowsOf(job)).toEqual(before);
    expect(await t.db('notes').where({ id: noteId }).first()).toMatchObject({
      job_id: job.id,
      text: 'Depends on the job',
    });
    expect((await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200)).body).toMatchObject({
      people: [{ name: 'Has Notes' }],
      assignees: [{ name: 'Sam Okafor' }],
    });
    expect(await pendingUndo(co.id)).toBe(1);
    expect(await feed(co.readKey)).toEqual(feedBefore);

    // Once the dependent record is gone, the undo goes through.
    await t.db('notes').where({ id: noteId }).delete();
    expect((await undo(co.writeKey).expect(200)).body.undone.tool).toBe('create_job');
    expect(await rowsOf(job)).toEqual({ jobRow: undefined, links: [], contacts: [], assignees: [] });
  });

  it('a refused undo leaves older actions alone', async () => {
    const co = await createCompany(t);
    const older = await createJob(co.writeKey, 'Older Olle');
    const newer = await createJob(co.writeKey, 'Newer Nils');
    await t.db.transaction(async (trx) => {
      await new RecordedWrites(trx, co.id).update('jobs', newer.id, { claim_number: 'CL-9' });
    });
    expectUndoRefused(await undo(co.writeKey));
    // The newest action blocks: the older create is not taken back instead.
    await as(t, co.readKey).get(`/api/v1/jobs/${older.id}`).expect(200);
    await as(t, co.readKey).get(`/api/v1/jobs/${newer.id}`).expect(200);
    expect(await pendingUndo(co.id)).toBe(2);
  });
});
