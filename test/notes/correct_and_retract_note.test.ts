/** Issue 4 tools over HTTP: overview, board moves, cancel and reopen, people, assignees, notes, activity. */
import { as, createCompany, feedSettled, opId, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

async function newJob(key = co.writeKey, extra: Record<string, unknown> = {}) {
  return (await as(t, key).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Maria Alvarez', customer_phone: '(555) 201-3344', ...extra }).expect(201)).body;
}
const getJob = async (id: string, key = co.readKey) => (await as(t, key).get(`/api/v1/jobs/${id}`).expect(200)).body;

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
      .send({ date_of_loss: '2026-11-18', cause_of_loss: 'Dishwasher supply line', water_category: 2, referral_source: 'plumber', adjuster: 'Priya Shah', claim_number: null })
      .expect(200);
    expect(res.body).toMatchObject({
      date_of_loss: '2026-11-18',
      cause_of_loss: 'Dishwasher supply line',
      water_category: 2,
      referral_source: 'Plumber',
      claim: { carrier: 'State Farm', claim_number: null, adjuster: 'Priya Shah' },
    });
    const feed = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=changes`).expect(200)).body.data;
    expect(feed[0]).toMatchObject({ action: 'job.overview_updated', summary: expect.stringContaining('claim_number') });
    expect((await as(t, co.readKey).get('/api/v1/jobs?q=priya').expect(200)).body.data.map((j: { id: string }) => j.id)).toContain(job.id);
  });

  it('refuses bad input and unknown names', async () => {
    const job = await newJob();
    // Changing nothing is not an error: the job comes back as it is (see test/inputs.test.ts).
    await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/overview`).send({}).expect(200);
    for (const body of [{ water_category: 4 }, { date_of_loss: 'last tuesday' }, { title: null }, { loss_type: 'volcano' }, { colour: 'red' }]) {
      expect((await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/overview`).send(body).expect(400)).body.code).toBe('invalid_request');
    }
    const unknown = await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/overview`).send({ referral_source: 'Carrier pigeon' }).expect(422);
    expect(unknown.body).toMatchObject({ code: 'unknown_referral_source', valid_values: expect.arrayContaining(['Plumber']) });
    await as(t, co.readKey).patch(`/api/v1/jobs/${job.id}/overview`).send({ carrier: 'X' }).expect(403);
    const theirs = await newJob(other.writeKey);
    await as(t, co.writeKey).patch(`/api/v1/jobs/${theirs.id}/overview`).send({ carrier: 'X' }).expect(404);
  });
});

describe('the board: move, cancel, reopen', () => {
  it('moves by name in any case, lists the board on an unknown status, and counts follow', async () => {
    const company = await createCompany(t);
    const job = await newJob(company.writeKey);
    await newJob(company.writeKey);
    expect((await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/status`).send({ status: 'drying' }).expect(200)).body.status).toBe('Drying');
    const unknown = await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/status`).send({ status: 'Done-ish' }).expect(422);
    expect(unknown.body).toMatchObject({ code: 'unknown_status', valid_values: ['New', 'Inspection', 'Mitigation', 'Drying', 'Rebuild', 'Invoicing', 'Closed'] });
    const counts = async () => Object.fromEntries((await as(t, company.readKey).get('/api/v1/job-statuses').expect(200)).body.data.map((s: { name: string; open_jobs: number }) => [s.name, s.open_jobs]));
    expect(await counts()).toMatchObject({ New: 1, Drying: 1 });

    await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/reopen`).send({}).expect(409);
    const cancelled = await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/cancel`).send({ reason: 'Customer went with another contractor' }).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'Cancelled', cancellation: { reason: 'Customer went with another contractor', returns_to: 'Drying' } });
    expect(await counts()).toMatchObject({ New: 1, Drying: 0 });
    expect((await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/cancel`).send({}).expect(409)).body.code).toBe('invalid_state');
    expect((await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/status`).send({ status: 'New' }).expect(409)).body.code).toBe('invalid_state');
    expect((await as(t, company.readKey).get('/api/v1/jobs?status=cancelled').expect(200)).body.data.map((j: { id: string }) => j.id)).toEqual([job.id]);

    const reopened = await as(t, company.writeKey).post(`/api/v1/jobs/${job.id}/reopen`).expect(200);
    expect(reopened.body).toMatchObject({ status: 'Drying', cancellation: null });
    expect(await counts()).toMatchObject({ New: 1, Drying: 1 });
    const activity = (await as(t, company.readKey).get(`/api/v1/jobs/${job.id}/activity`).expect(200)).body.data.map((e: { summary: string }) => e.summary);
    expect(activity.slice(0, 3)).toEqual([`Reopened #${job.job_number} in Drying`, `Cancelled #${job.job_number}: Customer went with another contractor`, `Moved #${job.job_number} from New to Drying`]);
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

describe('people on a job', () => {
  it('adds, updates by the same name, links a known person, and finds them', async () => {
    const job = await newJob();
    const added = await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/contacts`).send({ operation_id: opId(), name: 'Priya Shah', phone: '312-555-0108', role: 'Adjuster' }).expect(200);
    expect(added.body).toMatchObject({ outcome: 'added', contact: { name: 'Priya Shah', role: 'adjuster', phone: '312-555-0108' } });
    const again = await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/contacts`).send({ operation_id: opId(), name: 'priya SHAH', email: 'pshah@carrier.example' }).expect(200);
    expect(again.body).toMatchObject({ outcome: 'updated', contact: { id: added.body.contact.id, name: 'Priya Shah', email: 'pshah@carrier.example' } });
    expect((await getJob(job.id)).people.map((p: { name: string }) => p.name)).toEqual(['Maria Alvarez', 'Priya Shah']);

    const second = await newJob();
    const linked = await as(t, co.writeKey).post(`/api/v1/jobs/${second.id}/contacts`).send({ operation_id: opId(), contact_id: added.body.contact.id, role: 'adjuster' }).expect(200);
    expect(linked.body).toMatchObject({ outcome: 'linked', contact: { id: added.body.contact.id, phone: '312-555-0108' } });

    const found = (await as(t, co.readKey).get('/api/v1/customers?q=3125550108&role=adjuster').expect(200)).body.data;
    expect(found).toEqual([
      expect.objectContaining({ id: added.body.contact.id, roles: ['adjuster'], jobs: expect.arrayContaining([expect.objectContaining({ id: job.id }), expect.objectContaining({ id: second.id })]) }),
    ]);
    expect((await as(t, co.readKey).get('/api/v1/customers?q=pshah%40carrier').expect(200)).body.data).toHaveLength(1);
    const maria = (await as(t, co.readKey).get('/api/v1/customers?q=alvarez').expect(200)).body.data;
    expect(maria.length).toBeGreaterThan(0);
    expect(maria[0].roles).toEqual(['customer']);
    expect((await as(t, co.readKey).get('/api/v1/customers?q=alvarez&role=tenant').expect(200)).body.data).toEqual([]);
    expect((await as(t, co.readKey).get('/api/v1/jobs?q=3125550108').expect(200)).body.data.map((j: { id: string }) => j.id).sort()).toEqual([job.id, second.id].sort());
  });

  it('update_contact changes the person everywhere and clears with null', async () => {
    const job = await newJob();
    const person = (await getJob(job.id)).people[0];
    const res = await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/contacts/${person.id}`).send({ phone: null, email: 'maria@example.com', role: 'owner' }).expect(200);
    expect(res.body).toMatchObject({ id: person.id, phone: null, email: 'maria@example.com', role: 'owner' });
    await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/contacts/${person.id}`).send({}).expect(200);
    await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/contacts/con_nobody`).send({ name: 'X' }).expect(404);
    const theirs = await newJob(other.writeKey);
    const theirPerson = (await getJob(theirs.id, other.readKey)).people[0];
    await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/contacts/${theirPerson.id}`).send({ name: 'X' }).expect(404);
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/contacts`).send({ operation_id: opId(), contact_id: theirPerson.id }).expect(404);
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/contacts`).send({ operation_id: opId(), phone: '1' }).expect(400);
    await as(t, co.readKey).post(`/api/v1/jobs/${job.id}/contacts`).send({ operation_id: opId(), name: 'X' }).expect(403);
  });

  it('assigns and unassigns teammates by name', async () => {
    const job = await newJob();
    expect((await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/assignees`).send({ teammate: 'sam' }).expect(200)).body.assignees).toEqual([{ id: co.people[3].id, name: 'Sam Okafor' }]);
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/assignees`).send({ teammate: 'Sam Okafor' }).expect(200);
    expect((await getJob(job.id)).assignees).toHaveLength(1);
    const ambiguous = await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/assignees`).send({ teammate: 'Dana' }).expect(422);
    expect(ambiguous.body).toMatchObject({ code: 'ambiguous_teammate', valid_values: expect.arrayContaining(['Dana Brooks', 'Dana White']) });
    expect((await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/assignees`).send({ teammate: 'Zed' }).expect(422)).body.code).toBe('unknown_teammate');
    expect((await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/assignees/SAM%20OKAFOR`).expect(200)).body.assignees).toEqual([]);
    expect((await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/assignees/Sam%20Okafor`).expect(200)).body.assignees).toEqual([]);
    await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/assignees/Nobody`).expect(422);
    await as(t, co.readKey).delete(`/api/v1/jobs/${job.id}/assignees/Sam%20Okafor`).expect(403);
  });
});

describe('notes', () => {
  it('adds, corrects with history, retracts, and shows it all in the activity', async () => {
    const job = await newJob();
    const note = (await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: 'Set 3 air movers' }).expect(201)).body;
    expect(note).toMatchObject({ text: 'Set 3 air movers', author: { name: 'Avery Stone' }, history: [] });
    const corrected = await as(t, co.otherWriteKey).patch(`/api/v1/jobs/${job.id}/notes/${note.id}`).send({ text: 'Set 4 air movers' }).expect(200);
    expect(corrected.body).toMatchObject({ text: 'Set 4 air movers', history: [{ text: 'Set 3 air movers', replaced_by: { name: 'Dana Brooks' } }] });
    expect((await getJob(job.id)).recent_notes.map((n: { text: string }) => n.text)).toEqual(['Set 4 air movers']);

    const activity = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=notes`).expect(200)).body.data;
    expect(activity.map((e: { action: string }) => e.action)).toEqual(['note.corrected', 'note.added']);
    expect(activity[1].note).toMatchObject({ id: note.id, text: 'Set 4 air movers', history: [{ text: 'Set 3 air movers' }] });
    const byDana = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?person=dana%20brooks`).expect(200)).body.data;
    expect(byDana.map((e: { action: string; via_key: boolean }) => [e.action, e.via_key])).toEqual([['note.corrected', true]]);

    const retracted = await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/notes/${note.id}`).expect(200);
    expect(retracted.body).toEqual({ retracted: { id: note.id, job_id: job.id, corrections: 1 } });
    expect((await getJob(job.id)).recent_notes).toEqual([]);
    const after = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=notes`).expect(200)).body.data;
    expect(after[0]).toMatchObject({ action: 'note.retracted', note: null });
    expect(after.every((e: { note: unknown }) => e.note === null)).toBe(true);
    expect(JSON.stringify(after)).not.toContain('air movers');
    await feedSettled(t);
    const feed = (await as(t, co.readKey).get('/api/v1/changes?kind=notes&limit=100').expect(200)).body.data.map((e: { action: string }) => e.action);
    expect(feed.slice(-3)).toEqual(['note.added', 'note.corrected', 'note.retracted']);
  });

  it('refuses bad notes, other jobs’ notes and other companies', async () => {
    const job = await newJob();
    const otherJob = await newJob();
    const note = (await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: 'Hello' }).expect(201)).body;
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/notes`).send({ text: 'no operation id' }).expect(400);
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: '' }).expect(400);
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: 'x'.repeat(20001) }).expect(400);
    await as(t, co.writeKey).patch(`/api/v1/jobs/${otherJob.id}/notes/${note.id}`).send({ text: 'moved?' }).expect(404);
    await as(t, co.writeKey).delete(`/api/v1/jobs/${otherJob.id}/notes/${note.id}`).expect(404);
    await as(t, co.readKey).post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: 'Hi' }).expect(403);
    const theirs = await newJob(other.writeKey);
    await as(t, co.writeKey).post(`/api/v1/jobs/${theirs.id}/notes`).send({ operation_id: opId(), text: 'Hi' }).expect(404);
    await as(t, other.writeKey).patch(`/api/v1/jobs/${job.id}/notes/${note.id}`).send({ text: 'mine now' }).expect(404);
    await as(t, co.readKey).get(`/api/v1/jobs/${theirs.id}/activity`).expect(404);
    await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?person=Nobody`).expect(422);
  });

  it('pages the activity newest first without duplicates', async () => {
    const job = await newJob();
    for (let i = 0; i < 7; i++) await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: `note ${i}` }).expect(201);
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { body: { data: { id: string; note: { text: string } | null }[]; next_cursor: string | null } } = await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=notes&limit=3${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      seen.push(...page.body.data.map((e) => e.note!.text));
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(['note 6', 'note 5', 'note 4', 'note 3', 'note 2', 'note 1', 'note 0']);
  });
});
