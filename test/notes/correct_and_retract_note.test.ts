/**
 * correct_note and retract_note: a correction keeps the earlier text in the note's history, a
 * retraction takes the text out of the job, its activity and the feed; a note is reached only
 * through its own job, in its own company.
 */
import {
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { MARIA, openJob, readJob } from '../support/jobs';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

const newJob = (key = co.writeKey, extra: Record<string, unknown> = {}) =>
  openJob(t, key, { ...MARIA, ...extra });
const getJob = (id: string, key = co.readKey) => readJob(t, key, id);

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

describe('correct_note and retract_note', () => {
  it('adds, corrects with history, retracts, and shows it all in the activity', async () => {
    const job = await newJob();
    const note = (
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${job.id}/notes`)
        .send({ operation_id: opId(), text: 'Set 3 air movers' })
        .expect(201)
    ).body;
    expect(note).toMatchObject({ text: 'Set 3 air movers', author: { name: 'Avery Stone' }, history: [] });
    const corrected = await as(t, co.otherWriteKey)
      .patch(`/api/v1/jobs/${job.id}/notes/${note.id}`)
      .send({ text: 'Set 4 air movers' })
      .expect(200);
    expect(corrected.body).toMatchObject({
      text: 'Set 4 air movers',
      history: [{ text: 'Set 3 air movers', replaced_by: { name: 'Dana Brooks' } }],
    });
    expect((await getJob(job.id)).recent_notes.map((n: { text: string }) => n.text)).toEqual([
      'Set 4 air movers',
    ]);

    const activity = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=notes`).expect(200))
      .body.data;
    expect(activity.map((e: { action: string }) => e.action)).toEqual(['note.corrected', 'note.added']);
    expect(activity[1].note).toMatchObject({
      id: note.id,
      text: 'Set 4 air movers',
      history: [{ text: 'Set 3 air movers' }],
    });
    const byDana = (
      await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?person=dana%20brooks`).expect(200)
    ).body.data;
    expect(byDana.map((e: { action: string; via_key: boolean }) => [e.action, e.via_key])).toEqual([
      ['note.corrected', true],
    ]);

    const retracted = await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/notes/${note.id}`).expect(200);
    expect(retracted.body).toEqual({ retracted: { id: note.id, job_id: job.id, corrections: 1 } });
    expect((await getJob(job.id)).recent_notes).toEqual([]);
    const after = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=notes`).expect(200)).body
      .data;
    expect(after[0]).toMatchObject({ action: 'note.retracted', note: null });
    expect(after.every((e: { note: unknown }) => e.note === null)).toBe(true);
    expect(JSON.stringify(after)).not.toContain('air movers');
    await feedSettled(t);
    const feed = (
      await as(t, co.readKey).get('/api/v1/changes?kind=notes&limit=100').expect(200)
    ).body.data.map((e: { action: string }) => e.action);
    expect(feed.slice(-3)).toEqual(['note.added', 'note.corrected', 'note.retracted']);
  });

  it('keeps the reason of a retraction in the feed and the activity, and refuses an empty or overlong one', async () => {
    const job = await newJob();
    const note = (
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${job.id}/notes`)
        .send({ operation_id: opId(), text: 'Meant for another job' })
        .expect(201)
    ).body;
    const path = `/api/v1/jobs/${job.id}/notes/${note.id}`;
    await as(t, co.writeKey).delete(`${path}?reason=`).expect(400);
    await as(t, co.writeKey)
      .delete(`${path}?reason=${'x'.repeat(501)}`)
      .expect(400);
    await as(t, co.readKey).delete(`${path}?reason=Wrong%20job`).expect(403);
    await as(t, co.writeKey).delete(`${path}?reason=Wrong%20job&operation_id=${opId()}`).expect(200);
    const [entry] = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=notes`).expect(200))
      .body.data;
    expect(entry).toMatchObject({
      action: 'note.retracted',
      data: { action: 'note.retracted', note_id: note.id, reason: 'Wrong job' },
    });
    expect(entry.summary).toMatch(/retracted by Avery Stone: Wrong job$/);
    expect(JSON.stringify(entry)).not.toContain('Meant for another job');
  });

  it('refuses a note reached through another job or another company', async () => {
    const job = await newJob();
    const otherJob = await newJob();
    const note = (
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${job.id}/notes`)
        .send({ operation_id: opId(), text: 'Hello' })
        .expect(201)
    ).body;
    await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${otherJob.id}/notes/${note.id}`)
      .send({ text: 'moved?' })
      .expect(404);
    await as(t, co.writeKey).delete(`/api/v1/jobs/${otherJob.id}/notes/${note.id}`).expect(404);
    await as(t, other.writeKey)
      .patch(`/api/v1/jobs/${job.id}/notes/${note.id}`)
      .send({ text: 'mine now' })
      .expect(404);
    expect((await getJob(job.id)).recent_notes.map((n) => n.text)).toEqual(['Hello']);
  });
});
