/**
 * add_note as a user meets it, over HTTP and over MCP: the note it answers, the job's recent
 * notes and activity, the change feed, undo, the chat notification when the company turned it
 * on, replays and conflicts of an operation_id, and every kind of bad request (each refused with
 * nothing saved).
 *
 * The chat message is checked in the outbox the note's transaction writes, not by running a
 * delivery worker: on PostgreSQL every test file shares one outbox, and a worker here would
 * deliver test/chat/new-note-chat.test.ts's messages too. Delivery itself is tested there.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import type { components } from '../../sdk/src/schema';
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { openJob, readJob, type CreatedJob } from '../support/jobs';
import { callTool, connectMcp, problemOf } from '../support/mcp';

type Note = components['schemas']['Note'];
type ActivityEntry = components['schemas']['ActivityEntry'];
type ChangeEntry = components['schemas']['ChangeEntry'];
type UndoResult = components['schemas']['UndoResult'];
interface Problem {
  status: number;
  code: string;
  errors?: { path: string; message: string }[];
}

/** The spec's NoteText.maxLength, and DESIGN §8's note limit. */
const MAX_TEXT = 20_000;

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

beforeAll(async () => {
  // The chat webhook below is on loopback, which only this setting allows.
  t = await startApp({ CHAT_ALLOW_PRIVATE_TARGETS: 'true' });
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

const notesOf = (jobId: string) => `/api/v1/jobs/${jobId}/notes`;
const newJob = (company = co): Promise<CreatedJob> =>
  openJob(t, company.writeKey, { customer_name: 'Lena Fischer', loss_type: 'water' });
const recentNotes = async (jobId: string) => (await readJob(t, co.readKey, jobId)).recent_notes;

async function addNote(jobId: string, text: string, key = co.writeKey): Promise<Note> {
  return (await as(t, key).post(notesOf(jobId)).send({ operation_id: opId(), text }).expect(201)).body;
}

async function activity(jobId: string): Promise<ActivityEntry[]> {
  return (await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/activity?kind=notes`).expect(200)).body.data;
}

/** The company's feed entries about one job, oldest first. */
async function feedOf(company: TestCompany, jobId: string): Promise<ChangeEntry[]> {
  await feedSettled(t);
  const entries: ChangeEntry[] = [];
  for (let cursor = ''; ; ) {
    const page = (
      await as(t, company.readKey)
        .get(`/api/v1/changes?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200)
    ).body;
    if (page.data.length === 0) return entries.filter((entry) => entry.job?.id === jobId);
    entries.push(...page.data);
    cursor = page.next_cursor;
  }
}

describe('add_note over HTTP', () => {
  it('answers 201 with the note: its id, job, text as sent, author (the key owner) and an empty history', async () => {
    const job = await newJob();
    const text =
      'Set 3 air movers and 1 LGR in the kitchen.\nBaseboards pulled on the north wall — café 💧 done.';
    const res = await as(t, co.writeKey)
      .post(notesOf(job.id))
      .send({ operation_id: opId(), text })
      .expect(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const note: Note = res.body;
    expect(note).toEqual({
      id: expect.stringMatching(/^note_[0-9A-Za-z]+$/),
      job_id: job.id,
      text,
      author: { id: co.people[0].id, name: 'Avery Stone' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
      history: [],
    });
    expect(Date.parse(note.created_at)).not.toBeNaN();
    expect(note.updated_at).toBe(note.created_at);
    // Another person's key writes as that person.
    expect((await addNote(job.id, 'Second visit', co.otherWriteKey)).author).toEqual({
      id: co.people[1].id,
      name: 'Dana Brooks',
    });
  });

  it('finds the job by its id, its number and #number', async () => {
    const job = await newJob();
    for (const ref of [job.id, String(job.job_number), `%23${job.job_number}`]) {
      expect((await addNote(ref, `by ${ref}`)).job_id).toBe(job.id);
    }
    expect((await recentNotes(job.id)).map((n) => n.text)).toEqual([
      `by %23${job.job_number}`,
      `by ${job.job_number}`,
      `by ${job.id}`,
    ]);
  });

  it("shows the note first in the job's recent notes, at most five, newest first", async () => {
    const job = await newJob();
    const added: Note[] = [];
    for (let i = 1; i <= 6; i++) added.push(await addNote(job.id, `Visit ${i}`));
    const recent = await recentNotes(job.id);
    expect(recent).toEqual(
      added
        .slice(1)
        .reverse()
        .map((note) => ({ id: note.id, text: note.text, author: note.author, created_at: note.created_at })),
    );
  });

  it("records note.added in the job's activity, with the note as it is now", async () => {
    const job = await newJob();
    const note = await addNote(job.id, 'Moisture map drawn');
    const [entry] = await activity(job.id);
    expect(entry).toMatchObject({
      kind: 'notes',
      action: 'note.added',
      person: { id: co.people[0].id, name: 'Avery Stone' },
      via_key: true,
      data: { action: 'note.added', note_id: note.id },
      note,
    });
    expect(entry.summary).toContain(`#${job.job_number}`);
  });

  it('writes one notes entry to the change feed, attributed to the key owner', async () => {
    const job = await newJob();
    const note = await addNote(job.id, 'Customer agreed to the drying plan');
    const entries = await feedOf(co, job.id);
    expect(entries.map((e) => e.action)).toEqual(['job.created', 'note.added']);
    expect(entries[1]).toMatchObject({
      kind: 'notes',
      job: { id: job.id, job_number: job.job_number },
      person: { id: co.people[0].id, name: 'Avery Stone' },
      via_key: true,
      data: { action: 'note.added', note_id: note.id },
    });
    expect(entries[1].summary).toContain(`#${job.job_number}`);
    const narrowed = (await as(t, co.readKey).get('/api/v1/changes?kind=notes&limit=100').expect(200)).body
      .data as ChangeEntry[];
    expect(narrowed.filter((e) => e.job?.id === job.id).map((e) => e.action)).toEqual(['note.added']);
    // Another company's feed never shows it.
    expect(await feedOf(other, job.id)).toEqual([]);
  });

  it('is taken back by undo: the note leaves the job, the feed says so, and the operation_id cannot add it again', async () => {
    const job = await newJob();
    const body = { operation_id: opId(), text: 'Water shut off at the main' };
    const note: Note = (await as(t, co.writeKey).post(notesOf(job.id)).send(body).expect(201)).body;
    const undone: UndoResult = (
      await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200)
    ).body;
    expect(undone).toMatchObject({
      preview: false,
      undone: {
        tool: 'add_note',
        record: { type: 'note', id: note.id },
        job: { id: job.id, job_number: job.job_number },
        credits_refunded: 0,
      },
    });
    expect(undone.undone.effect).toEqual(expect.any(String));
    expect(await recentNotes(job.id)).toEqual([]);
    expect(JSON.stringify(await activity(job.id))).not.toContain('Water shut off');
    const entries = await feedOf(co, job.id);
    expect(entries.at(-1)).toMatchObject({
      action: 'action.undone',
      data: { action: 'action.undone', undone: { action: 'note.added' } },
    });
    // The undone write is not done again by resending it; a new operation_id adds the note anew.
    expect((await as(t, co.writeKey).post(notesOf(job.id)).send(body).expect(409)).body.code).toBe(
      'operation_undone',
    );
    expect(await recentNotes(job.id)).toEqual([]);
    await as(t, co.writeKey)
      .post(notesOf(job.id))
      .send({ ...body, operation_id: opId() })
      .expect(201);
    expect((await recentNotes(job.id)).map((n) => n.text)).toEqual([body.text]);
  });

  it('answers a replayed operation_id with the first answer and saves nothing twice, for any key of the company', async () => {
    const job = await newJob();
    const body = { operation_id: opId(), text: 'Readings taken in every room' };
    const first = await as(t, co.writeKey).post(notesOf(job.id)).send(body).expect(201);
    for (const key of [co.writeKey, co.otherWriteKey]) {
      const again = await as(t, key).post(notesOf(job.id)).send(body).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
    }
    expect((await recentNotes(job.id)).map((n) => n.id)).toEqual([first.body.id]);
    expect((await feedOf(co, job.id)).filter((e) => e.action === 'note.added')).toHaveLength(1);
  });

  it('refuses an operation_id used with other details: 409 operation_id_conflict, nothing saved', async () => {
    const job = await newJob();
    const second = await newJob();
    const body = { operation_id: opId(), text: 'Original text' };
    await as(t, co.writeKey).post(notesOf(job.id)).send(body).expect(201);
    for (const [jobId, text] of [
      [job.id, 'Other text'],
      [second.id, body.text],
    ]) {
      const conflict = await as(t, co.writeKey)
        .post(notesOf(jobId))
        .send({ ...body, text })
        .expect(409);
      expect(conflict.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(conflict.body.code).toBe('operation_id_conflict');
    }
    expect((await recentNotes(job.id)).map((n) => n.text)).toEqual(['Original text']);
    expect(await recentNotes(second.id)).toEqual([]);
  });

  it(`takes a text of ${MAX_TEXT.toLocaleString('en-US')} characters, counted as characters, not UTF-16 units`, async () => {
    const job = await newJob();
    expect((await addNote(job.id, 'x'.repeat(MAX_TEXT))).text).toHaveLength(MAX_TEXT);
    const drops = '💧'.repeat(MAX_TEXT); // 20,000 characters, 40,000 UTF-16 units
    expect((await addNote(job.id, drops)).text).toBe(drops);
    expect((await recentNotes(job.id))[0].text).toBe(drops);
  });

  describe('refuses, naming the field, and saves nothing', () => {
    let job: CreatedJob;
    beforeAll(async () => {
      job = await newJob();
    });
    afterEach(async () => {
      expect(await recentNotes(job.id)).toEqual([]);
      expect((await feedOf(co, job.id)).map((e) => e.action)).toEqual(['job.created']);
    });

    const refused = async (body: unknown, path: string) => {
      const res = await as(t, co.writeKey)
        .post(notesOf(job.id))
        .send(body as object)
        .expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem: Problem = res.body;
      expect(problem).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(problem.errors!.map((e) => e.path)).toContain(path);
    };

    it.each([
      ['no text', {}],
      ['an empty text', { text: '' }],
      [`a text of ${MAX_TEXT + 1} characters`, { text: 'x'.repeat(MAX_TEXT + 1) }],
      [`a text of ${MAX_TEXT + 1} emoji`, { text: '💧'.repeat(MAX_TEXT + 1) }],
      ['a number as text', { text: 42 }],
      ['null as text', { text: null }],
      ['a list as text', { text: ['Set 3 air movers'] }],
      ['an object as text', { text: { body: 'Set 3 air movers' } }],
      ['a NUL character in the text', { text: 'Set 3\u0000air movers' }],
    ])('%s (400 at /body/text)', async (_label, fields) => {
      await refused({ operation_id: opId(), ...fields }, '/body/text');
    });

    it.each([
      ['no operation_id', { text: 'no operation id' }],
      ['an empty operation_id', { operation_id: '', text: 'Hi' }],
      ['a number as operation_id', { operation_id: 7, text: 'Hi' }],
      ['an operation_id over 200 characters', { operation_id: 'o'.repeat(201), text: 'Hi' }],
    ])('%s (400 at /body/operation_id)', async (_label, body) => {
      await refused(body, '/body/operation_id');
    });

    it('a field the spec does not know', async () => {
      await refused({ operation_id: opId(), text: 'Hi', author: 'Sam Okafor' }, '/body/author');
    });

    it('a body that is not an object', async () => {
      const res = await as(t, co.writeKey).post(notesOf(job.id)).send(['Hi']).expect(400);
      expect(res.body.code).toBe('invalid_request');
    });

    it('an id of another kind as the job', async () => {
      const res = await as(t, co.writeKey)
        .post(notesOf('est_abc'))
        .send({ operation_id: opId(), text: 'Hi' })
        .expect(400);
      expect((res.body as Problem).errors!.map((e) => e.path)).toEqual(['/path/job_id']);
    });
  });

  it('answers 404 for a job that does not exist and for a job of another company, alike', async () => {
    const theirs = await newJob(other);
    const problems: Problem[] = [];
    // Job numbers belong to a company: another company's job is reached by its id only.
    for (const ref of ['job_doesnotexist', '%23999999', '999999', theirs.id]) {
      const res = await as(t, co.writeKey)
        .post(notesOf(ref))
        .send({ operation_id: opId(), text: 'Hello?' })
        .expect(404);
      problems.push(res.body);
    }
    expect(problems.map((p) => p.code)).toEqual(Array(4).fill('not_found'));
    const withoutRequestId = ({ request_id: _id, ...rest }: Problem & { request_id?: string }) => rest;
    expect(withoutRequestId(problems[3])).toEqual(withoutRequestId(problems[0]));
    expect((await readJob(t, other.readKey, theirs.id)).recent_notes).toEqual([]);
  });

  it('answers 403 write_key_required to a read key and 401 without a key, saving nothing', async () => {
    const job = await newJob();
    const res = await as(t, co.readKey)
      .post(notesOf(job.id))
      .send({ operation_id: opId(), text: 'Hi' })
      .expect(403);
    expect(res.body.code).toBe('write_key_required');
    const anonymous = await t.http
      .post(notesOf(job.id))
      .send({ operation_id: opId(), text: 'Hi' })
      .expect(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(await recentNotes(job.id)).toEqual([]);
  });
});

describe('the chat notification', () => {
  interface Outboxed {
    webhook_url: string;
    payload: string | { text: string };
  }
  let hook: http.Server;
  let hookUrl: string;

  // Nothing is delivered here (see the top of the file), but the webhook must exist: on
  // PostgreSQL the chat tests' worker may deliver this file's messages.
  beforeAll(async () => {
    hook = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/notes`;
  });
  afterAll(async () => {
    hook.closeAllConnections();
    await new Promise((resolve) => hook.close(resolve));
  });

  const setChat = (company: TestCompany, webhookUrl: string | null, newNote: boolean) =>
    t.http
      .put(`/admin/v1/companies/${company.id}/chat`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ webhook_url: webhookUrl, new_note: newNote })
      .expect(200);

  async function outbox(company: TestCompany): Promise<{ url: string; text: string }[]> {
    const rows: Outboxed[] = await t
      .db('chat_outbox')
      .where({ company_id: company.id })
      .orderBy('created_at')
      .select('webhook_url', 'payload');
    return rows.map((row) => ({
      url: row.webhook_url,
      text: (typeof row.payload === 'string' ? (JSON.parse(row.payload) as { text: string }) : row.payload)
        .text,
    }));
  }

  it('queues one message with the job, the author and the text when New note is on, also when the note is replayed', async () => {
    const company = await createCompany(t);
    await setChat(company, hookUrl, true);
    const job = await newJob(company);
    const body = { operation_id: opId(), text: 'Moisture readings are down to 12% in the kitchen.' };
    await as(t, company.writeKey).post(notesOf(job.id)).send(body).expect(201);
    await as(t, company.writeKey)
      .post(notesOf(job.id))
      .send(body)
      .expect(201)
      .expect('Idempotent-Replayed', 'true');
    const messages = await outbox(company);
    expect(messages).toHaveLength(1);
    expect(messages[0].url).toBe(hookUrl);
    for (const part of [`#${job.job_number}`, job.title, 'Avery Stone', body.text])
      expect(messages[0].text).toContain(part);
  });

  it('queues nothing while the switch is off (the default), without a webhook, or for a refused note', async () => {
    const company = await createCompany(t);
    const job = await newJob(company);
    await addNote(job.id, 'No chat connected', company.writeKey);
    await setChat(company, hookUrl, false);
    await addNote(job.id, 'Switch off', company.writeKey);
    await setChat(company, null, true);
    await addNote(job.id, 'No webhook', company.writeKey);
    await setChat(company, hookUrl, true);
    await as(t, company.writeKey).post(notesOf(job.id)).send({ operation_id: opId(), text: '' }).expect(400);
    await as(t, company.writeKey)
      .post(notesOf('%23999999'))
      .send({ operation_id: opId(), text: 'On no job' })
      .expect(404);
    await as(t, company.readKey)
      .post(notesOf(job.id))
      .send({ operation_id: opId(), text: 'Read key' })
      .expect(403);
    expect(await outbox(company)).toEqual([]);
  });
});

describe('add_note over MCP', () => {
  let writer: Client;
  let reader: Client;
  beforeAll(async () => {
    writer = await connectMcp(t, co.writeKey);
    reader = await connectMcp(t, co.readKey);
  });
  afterAll(async () => {
    await writer.close();
    await reader.close();
  });

  it('is offered to a write key only, as an idempotent write needing job_id, operation_id and text', async () => {
    const offered = (await writer.listTools()).tools.find((tool) => tool.name === 'add_note');
    expect(offered?.inputSchema.required?.slice().sort()).toEqual(['job_id', 'operation_id', 'text']);
    expect(offered?.annotations).toEqual({
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    }); // readOnlyHint false is MCP's default, left out
    expect((await reader.listTools()).tools.map((tool) => tool.name)).not.toContain('add_note');
  });

  it('adds the note as the key owner, with the job as id, number or #number, and answers the note as HTTP reads it', async () => {
    const job = await newJob();
    const notes: Note[] = [];
    for (const jobId of [job.id, job.job_number, `#${job.job_number}`]) {
      const result = await callTool(writer, 'add_note', {
        job_id: jobId,
        operation_id: opId(),
        text: `Over MCP by ${jobId}`,
      });
      expect(result.isError).toBeFalsy();
      notes.push(result.structuredContent as unknown as Note);
    }
    expect(notes.map((note) => [note.job_id, note.author.name])).toEqual(
      Array(3).fill([job.id, 'Avery Stone']),
    );
    const [entry] = await activity(job.id);
    expect(entry.note).toEqual(notes[2]);
    expect((await recentNotes(job.id)).map((n) => n.id)).toEqual(notes.map((n) => n.id).reverse());
  });

  it('shares operation_ids with HTTP: a replay answers the first note, other details are a conflict', async () => {
    const job = await newJob();
    const body = { operation_id: opId(), text: 'First over HTTP' };
    const first: Note = (await as(t, co.writeKey).post(notesOf(job.id)).send(body).expect(201)).body;
    const replay = await callTool(writer, 'add_note', { job_id: job.id, ...body });
    expect(replay.structuredContent).toEqual(first);
    expect(
      problemOf(await callTool(writer, 'add_note', { job_id: job.id, ...body, text: 'Changed' })),
    ).toMatchObject({ status: 409, code: 'operation_id_conflict' });
    expect((await recentNotes(job.id)).map((n) => n.id)).toEqual([first.id]);
  });

  it('answers problems as isError results naming the argument, and saves nothing', async () => {
    const job = await newJob();
    const theirs = await newJob(other);
    const call = async (client: Client, args: Record<string, unknown>) =>
      problemOf(await callTool(client, 'add_note', args));
    expect(await call(reader, { job_id: job.id, operation_id: opId(), text: 'Hi' })).toMatchObject({
      status: 403,
      code: 'write_key_required',
    });
    for (const [args, path] of [
      [{ job_id: job.id, operation_id: opId() }, '/text'],
      [{ job_id: job.id, operation_id: opId(), text: '' }, '/text'],
      [{ job_id: job.id, operation_id: opId(), text: 'x'.repeat(MAX_TEXT + 1) }, '/text'],
      [{ job_id: job.id, operation_id: opId(), text: 12 }, '/text'],
      [{ job_id: job.id, operation_id: opId(), text: 'NUL\u0000here' }, '/text'],
      [{ job_id: job.id, text: 'Hi' }, '/operation_id'],
    ] as const) {
      const problem = await call(writer, args);
      expect({ args, code: problem.code, paths: problem.errors?.map((e) => e.path) }).toEqual({
        args,
        code: 'invalid_request',
        paths: [path],
      });
    }
    for (const jobId of ['job_doesnotexist', 999999, theirs.id]) {
      expect(await call(writer, { job_id: jobId, operation_id: opId(), text: 'Hello?' })).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    }
    expect(await recentNotes(job.id)).toEqual([]);
    expect((await readJob(t, other.readKey, theirs.id)).recent_notes).toEqual([]);
  });
});
