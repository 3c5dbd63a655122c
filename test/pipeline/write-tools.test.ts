/**
 * Every write tool of jobs, people and notes goes through the one pipeline: replay, conflict,
 * undo back to the state before, and undo refused once another person changed the record.
 */
import type { Test } from 'supertest';
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

interface Fixture {
  jobId: string;
  contactId: string;
  noteId: string;
}

async function fixture(): Promise<Fixture> {
  const job = (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Tom Nguyen', assignee: 'Sam Okafor' })
      .expect(201)
  ).body;
  const note = (
    await as(t, co.otherWriteKey)
      .post(`/api/v1/jobs/${job.id}/notes`)
      .send({ operation_id: opId(), text: 'First look' })
      .expect(201)
  ).body;
  return { jobId: job.id, contactId: job.people[0].id, noteId: note.id };
}

/** Each write tool: a request (with its operation_id), and a variant with other details. */
const TOOLS: Record<string, (f: Fixture, key: string, operationId: string, variant?: boolean) => Test> = {
  update_job_overview: (f, key, id, v) =>
    as(t, key)
      .patch(`/api/v1/jobs/${f.jobId}/overview`)
      .send({ operation_id: id, carrier: v ? 'Travelers' : 'Allstate' }),
  move_job_status: (f, key, id, v) =>
    as(t, key)
      .post(`/api/v1/jobs/${f.jobId}/status`)
      .send({ operation_id: id, status: v ? 'Rebuild' : 'Drying' }),
  cancel_job: (f, key, id, v) =>
    as(t, key)
      .post(`/api/v1/jobs/${f.jobId}/cancel`)
      .send({ operation_id: id, reason: v ? 'Other' : 'Duplicate' }),
  add_contact: (f, key, id, v) =>
    as(t, key)
      .post(`/api/v1/jobs/${f.jobId}/contacts`)
      .send({ operation_id: id, name: v ? 'Lee Park' : 'Priya Shah', role: 'adjuster' }),
  update_contact: (f, key, id, v) =>
    as(t, key)
      .patch(`/api/v1/jobs/${f.jobId}/contacts/${f.contactId}`)
      .send({ operation_id: id, phone: v ? '555-0000' : '555-1111' }),
  assign_job: (f, key, id, v) =>
    as(t, key)
      .post(`/api/v1/jobs/${f.jobId}/assignees`)
      .send({ operation_id: id, teammate: v ? 'Dana White' : 'Dana Brooks' }),
  unassign_job: (f, key, id, v) =>
    as(t, key).delete(
      `/api/v1/jobs/${f.jobId}/assignees/${v ? 'Avery%20Stone' : 'Sam%20Okafor'}?operation_id=${id}`,
    ),
  add_note: (f, key, id, v) =>
    as(t, key)
      .post(`/api/v1/jobs/${f.jobId}/notes`)
      .send({ operation_id: id, text: v ? 'Other text' : 'Readings taken' }),
  correct_note: (f, key, id, v) =>
    as(t, key)
      .patch(`/api/v1/jobs/${f.jobId}/notes/${f.noteId}`)
      .send({ operation_id: id, text: v ? 'Other fix' : 'First look, corrected' }),
  retract_note: (f, key, id, v) =>
    as(t, key).delete(`/api/v1/jobs/${f.jobId}/notes/${v ? 'note_other' : f.noteId}?operation_id=${id}`),
};

async function snapshot(f: Fixture) {
  const job = (await as(t, co.readKey).get(`/api/v1/jobs/${f.jobId}`).expect(200)).body;
  const { updated_at: _updated, ...rest } = job;
  return rest;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe.each(Object.keys(TOOLS))('%s', (tool) => {
  const request = TOOLS[tool];

  it('replays the same operation_id, refuses it with other details, and needs a write key', async () => {
    const f = await fixture();
    const operationId = opId();
    const first = await request(f, co.writeKey, operationId).expect((res) =>
      expect(res.status).toBeLessThan(300),
    );
    // The feed shows an entry once every write that began before it has ended, on the whole
    // server (other test files write beside this one): counted once it has settled.
    await feedSettled(t);
    const feedAfterFirst = (await as(t, co.readKey).get('/api/v1/changes?limit=100').expect(200)).body.data
      .length;
    const again = await request(f, co.writeKey, operationId);
    expect(again.status).toBe(first.status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    await feedSettled(t);
    expect((await as(t, co.readKey).get('/api/v1/changes?limit=100').expect(200)).body.data.length).toBe(
      feedAfterFirst,
    );
    expect((await request(f, co.writeKey, operationId, true).expect(409)).body.code).toBe(
      'operation_id_conflict',
    );
    expect((await request(f, co.readKey, opId()).expect(403)).body.code).toBe('write_key_required');
  });

  it('is taken back by undo, exactly', async () => {
    const f = await fixture();
    const before = await snapshot(f);
    await request(f, co.writeKey, opId()).expect((res) => expect(res.status).toBeLessThan(300));
    expect(await snapshot(f)).not.toEqual(before);
    const undone = await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect(undone.body.undone.tool).toBe(tool);
    expect(await snapshot(f)).toEqual(before);
  });
});

/** For each tool, how another person (Dana) changes the same record afterwards. */
const CHANGED_BY_DANA: Record<string, (f: Fixture) => Promise<unknown>> = {
  update_job_overview: (f) =>
    as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${f.jobId}/overview`)
      .send({ title: 'Renamed by Dana' })
      .expect(200),
  move_job_status: (f) =>
    as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${f.jobId}/overview`)
      .send({ title: 'Renamed by Dana' })
      .expect(200),
  cancel_job: (f) =>
    as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${f.jobId}/overview`)
      .send({ title: 'Renamed by Dana' })
      .expect(200),
  add_contact: async (f) => {
    const people = (await as(t, co.readKey).get(`/api/v1/jobs/${f.jobId}`).expect(200)).body.people;
    await as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${f.jobId}/contacts/${people.at(-1).id}`)
      .send({ email: 'dana@example.com' })
      .expect(200);
  },
  update_contact: (f) =>
    as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${f.jobId}/contacts/${f.contactId}`)
      .send({ email: 'dana@example.com' })
      .expect(200),
  assign_job: (f) =>
    as(t, co.otherWriteKey).delete(`/api/v1/jobs/${f.jobId}/assignees/Dana%20Brooks`).expect(200),
  unassign_job: (f) =>
    as(t, co.otherWriteKey)
      .post(`/api/v1/jobs/${f.jobId}/assignees`)
      .send({ teammate: 'Sam Okafor' })
      .expect(200),
  add_note: async (f) => {
    const notes = (await as(t, co.readKey).get(`/api/v1/jobs/${f.jobId}`).expect(200)).body.recent_notes;
    await as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${f.jobId}/notes/${notes[0].id}`)
      .send({ text: 'edited by Dana' })
      .expect(200);
  },
  correct_note: (f) =>
    as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${f.jobId}/notes/${f.noteId}`)
      .send({ text: 'Dana again' })
      .expect(200),
};

// A retracted note cannot be changed by anyone, so retract_note has no such case.
describe.each(Object.keys(CHANGED_BY_DANA))('undo of %s after another person changed the record', (tool) => {
  it('is refused with 409 undo_not_possible and changes nothing', async () => {
    const f = await fixture();
    await TOOLS[tool](f, co.writeKey, opId()).expect((res) => expect(res.status).toBeLessThan(300));
    await CHANGED_BY_DANA[tool](f);
    const before = await snapshot(f);
    const refused = await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(409);
    expect(refused.body.code).toBe('undo_not_possible');
    expect(await snapshot(f)).toEqual(before);
  });
});
