/**
 * Undo (DESIGN §5): each key takes back its own last action, then the one before, while nobody
 * changed the record since and nothing depends on it; otherwise 409 undo_not_possible, with
 * nothing half undone. A newer change undo cannot take back (an estimate made final) is named,
 * and gone past only with confirm_skip; effects say exactly what is deleted and what is kept.
 */
import type { Response } from 'supertest';
import { newId } from '../../src/platform/ids';
import { RecordedWrites } from '../../src/platform/undo';
import {
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { callTool, connectMcp, problemOf } from '../support/mcp';
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

type PdfExport = components['schemas']['PdfExport'];
type PacketBuild = components['schemas']['PacketBuild'];
type Estimate = components['schemas']['Estimate'];

/** Links name the service's PUBLIC_URL; the test's service listens on a port of its own. */
const local = (url: string): string => {
  const link = new URL(url);
  return `${t.url}${link.pathname}${link.search}`;
};

const money = (cents: number): string =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

const tenDaysAgo = (): string => new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);

async function newEstimate(key: string, jobId: string): Promise<Estimate> {
  const body = {
    operation_id: opId(),
    label: 'Water mitigation',
    rooms: [{ name: 'Kitchen', length: 12, width: 10, height: 8 }],
    line_items: [
      { description: 'Water extraction', room: 'Kitchen', unit: 'SF', quantity: 120, unit_price_cents: 123 },
    ],
  };
  return (await as(t, key).post(`/api/v1/jobs/${jobId}/estimates`).send(body).expect(201)).body.estimate;
}

const estimateOf = async (key: string, id: string): Promise<Estimate> =>
  (await as(t, key).get(`/api/v1/estimates/${id}`).expect(200)).body;

/**
 * Makes the job's estimate final as the office does: the key makes the export_pdf link, and the
 * packet holding the estimate is downloaded whole. Returns the feed entry of the finalisation.
 */
async function finalise(key: string, readKey: string, jobId: string): Promise<Entry> {
  const path = `/api/v1/jobs/${jobId}/export-pdf?documents=estimate`;
  const asked = await as(t, key).get(path);
  // The office confirms the readiness check's high findings, as the page asks it to.
  const confirmed =
    asked.status === 409 && asked.body.code === 'findings_unconfirmed'
      ? await as(t, key).get(
          path +
            (asked.body.findings as { key: string }[])
              .map((finding) => `&confirm_findings=${encodeURIComponent(finding.key)}`)
              .join(''),
        )
      : asked;
  expect(confirmed.status).toBe(200);
  const link = confirmed.body as PdfExport;
  expect(link.finalizes_estimate).toBe(true);
  const queued = await fetch(local(link.pdf_url), { method: 'POST' });
  expect(queued.status).toBe(202);
  let build = (await queued.json()) as PacketBuild;
  for (let tries = 0; build.state !== 'ready' && tries < 600; tries++) {
    expect(build.state).not.toBe('failed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  const pdf = await fetch(local(build.download_url!));
  expect(pdf.status).toBe(200);
  await pdf.arrayBuffer();
  for (let tries = 0; !build.delivered && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  expect(build.delivered).toBe(true);
  const entry = (await feed(readKey))
    .filter((e) => e.action === 'estimate.finalized' && e.job?.id === jobId)
    .at(-1);
  expect(entry).toBeDefined();
  return entry!;
}

/** A job with an estimate, a drying log on it and a drying note, whose estimate the key then made final. */
async function finalisedAfterNote(co: TestCompany) {
  const job = await createJob(co.writeKey, 'Final Fiona');
  const estimate = await newEstimate(co.writeKey, job.id);
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/drying-log`)
    .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }], start_date: tenDaysAgo() })
    .expect(201);
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/drying-log/notes`)
    .send({ operation_id: opId(), text: 'Moved two air movers to the hall' })
    .expect(201);
  const finalised = await finalise(co.writeKey, co.readKey, job.id);
  return { job, estimate, finalised };
}

/** What not_undoable says of the finalisation. */
function finalisationNamed(finalised: Entry, estimateId: string) {
  return {
    entry_id: finalised.id,
    action: 'estimate.finalized',
    summary: finalised.summary,
    at: finalised.at,
    record: { type: 'estimate', id: estimateId },
    job: finalised.job,
    reason:
      'a final estimate stays final (its PDF may already be with the carrier); write a new estimate instead.',
    more: 0,
  };
}

async function dryingNotes(key: string, jobId: string): Promise<string[]> {
  const log = (await as(t, key).get(`/api/v1/jobs/${jobId}/drying-log`).expect(200)).body;
  return (log.notes as { text: string }[]).map((n) => n.text);
}

describe('a last change undo cannot take back', () => {
  it('is named by the preview and the answer, with the older change undo takes back instead, which needs confirm_skip', async () => {
    const co = await createCompany(t);
    const { job, estimate, finalised } = await finalisedAfterNote(co);
    expect(finalised.summary).toBe(
      `Water mitigation on #${job.job_number}: made final (its PDF was downloaded)`,
    );
    const named = finalisationNamed(finalised, estimate.id);
    const noteUndone = {
      tool: 'add_drying_note',
      summary: `Drying note on #${job.job_number} by Avery Stone`,
      at: expect.any(String),
      record: { type: 'drying note', id: expect.stringMatching(/^dnote_/) },
      job: { id: job.id, job_number: job.job_number },
      effect: `deleted drying note 'Moved two air movers to the hall' on #${job.job_number}`,
      credits_refunded: 0,
    };

    const preview = await undo(co.writeKey, { preview: true }).expect(200);
    expect(preview.body).toEqual({ preview: true, not_undoable: named, undone: noteUndone });

    // Without confirm_skip nothing is taken back, and the refusal names both changes.
    const feedBefore = await feed(co.readKey);
    const refused = await undo(co.writeKey).expect(409);
    expect(refused.body).toMatchObject({
      code: 'confirmation_required',
      title: 'Confirmation required',
      errors: [{ path: '/body/confirm_skip', message: expect.stringContaining(`"${finalised.id}"`) }],
    });
    expect(refused.body.detail).toBe(
      `This key's last change, "${finalised.summary}" (${finalised.at}, feed entry ${finalised.id}), cannot be undone: ${named.reason} ` +
        `Undo would take back "${preview.body.undone.summary}" instead (${noteUndone.effect}). To take that back, send confirm_skip "${finalised.id}".`,
    );
    // A confirmation naming another change is refused the same way.
    const wrong = await undo(co.writeKey, { confirm_skip: String(Number(finalised.id) + 1000) }).expect(409);
    expect(wrong.body.code).toBe('confirmation_required');
    expect(await dryingNotes(co.readKey, job.id)).toEqual(['Moved two air movers to the hall']);
    expect(await feed(co.readKey)).toEqual(feedBefore);
    expect(await pendingUndo(co.id)).toBe(4);

    // Confirmed: the note goes, the answer names the change passed over again; the estimate stays final.
    const operationId = opId();
    const done = await undo(co.writeKey, { operation_id: operationId, confirm_skip: finalised.id }).expect(
      200,
    );
    expect(done.body).toEqual({ preview: false, not_undoable: named, undone: noteUndone });
    expect(await dryingNotes(co.readKey, job.id)).toEqual([]);
    expect((await estimateOf(co.readKey, estimate.id)).status).toBe('final');

    // The same undo again is its first answer; other details under its operation_id are a conflict.
    const replay = await undo(co.writeKey, { operation_id: operationId, confirm_skip: finalised.id }).expect(
      200,
    );
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(done.body);
    for (const other of [{}, { preview: true }, { confirm_skip: '1' }]) {
      const conflict = await undo(co.writeKey, { operation_id: operationId, ...other }).expect(409);
      expect(conflict.body.code).toBe('operation_id_conflict');
    }
    expect((await feed(co.readKey)).filter((e) => e.action === 'action.undone')).toHaveLength(1);

    // The change before (the drying log, which set the estimate's drying days) cannot be taken
    // back either: the estimate was made final since. The refusal names both.
    for (const body of [{ preview: true }, { confirm_skip: finalised.id }]) {
      const refusedToo = await undo(co.writeKey, body);
      expectUndoRefused(refusedToo);
      expect(refusedToo.body.detail).toBe(
        `"Drying log started on #${job.job_number} (day 1 ${tenDaysAgo()}, 3 days planned)" cannot be undone: the record was changed since. ` +
          `This key's last change, "${finalised.summary}" (${finalised.at}, feed entry ${finalised.id}), cannot be undone: ${named.reason}`,
      );
    }
    expect(await pendingUndo(co.id)).toBe(3);
    expect((await estimateOf(co.readKey, estimate.id)).status).toBe('final');
  });

  it('a read key cannot undo (403), and a confirm_skip when undo goes past nothing is refused', async () => {
    const co = await createCompany(t);
    const { finalised } = await finalisedAfterNote(co);
    const read = await undo(co.readKey, { confirm_skip: finalised.id });
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('write_key_required');
    expect(await pendingUndo(co.id)).toBe(4);

    // A confirm_skip that is no feed entry id is a bad request naming the field; nothing is undone.
    for (const bad of [Number(finalised.id), 'entry 12', '']) {
      const res = await undo(co.writeKey, { confirm_skip: bad }).expect(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['/body/confirm_skip']);
    }
    expect(await pendingUndo(co.id)).toBe(4);

    // Another key's undo is not held back by this key's finalisation, and takes no confirmation.
    const job = await createJob(co.otherWriteKey, 'Other Otto');
    const stray = await undo(co.otherWriteKey, { confirm_skip: finalised.id }).expect(409);
    expect(stray.body).toMatchObject({
      code: 'confirmation_required',
      errors: [{ path: '/body/confirm_skip', message: 'must not be sent: undo goes past no change' }],
    });
    await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200);
    expect((await undo(co.otherWriteKey).expect(200)).body).toMatchObject({
      not_undoable: null,
      undone: { tool: 'create_job' },
    });
  });

  it('with nothing older to take back, the 409 names the last change and why', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Linked Lou');
    await newEstimate(co.writeKey, job.id);
    // Dana's key only made the link the packet was downloaded through: the finalisation is hers.
    const finalised = await finalise(co.otherWriteKey, co.readKey, job.id);
    expect(finalised.person?.name).toBe('Dana Brooks');
    const res = await undo(co.otherWriteKey);
    expectUndoRefused(res);
    expect(res.body.detail).toBe(
      `There is nothing left to undo for this key. This key's last change, "${finalised.summary}" (${finalised.at}, feed entry ${finalised.id}), cannot be undone: a final estimate stays final (its PDF may already be with the carrier); write a new estimate instead.`,
    );
  });

  it('names the newest of several such changes, and counts the others in more', async () => {
    const co = await createCompany(t);
    const noted = await createJob(co.writeKey, 'Noted Nora');
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${noted.id}/notes`)
      .send({ operation_id: opId(), text: 'Customer called about the fans' })
      .expect(201);
    const finalised = [];
    for (const name of ['First Finn', 'Second Sigrid']) {
      const job = await createJob(co.otherWriteKey, name);
      await newEstimate(co.otherWriteKey, job.id);
      finalised.push(await finalise(co.writeKey, co.readKey, job.id));
    }
    const preview = (await undo(co.writeKey, { preview: true }).expect(200)).body;
    expect(preview.not_undoable).toMatchObject({ entry_id: finalised[1].id, more: 1 });
    expect(preview.undone).toMatchObject({ tool: 'add_note', job: { id: noted.id } });
    // Confirming the older one is not confirming the newest.
    const older = await undo(co.writeKey, { confirm_skip: finalised[0].id }).expect(409);
    expect(older.body.code).toBe('confirmation_required');
    const done = (await undo(co.writeKey, { confirm_skip: finalised[1].id }).expect(200)).body;
    expect(done.undone.effect).toBe(`deleted note 'Customer called about the fans' on #${noted.job_number}`);
  });

  it('over MCP: the preview names it, the undo without confirm_skip is refused, with it goes through', async () => {
    const co = await createCompany(t);
    const { job, estimate, finalised } = await finalisedAfterNote(co);
    const client = await connectMcp(t, co.writeKey);
    try {
      const preview = await callTool(client, 'undo_my_last_action', { operation_id: opId(), preview: true });
      expect(preview.isError).toBeFalsy();
      expect(preview.structuredContent).toMatchObject({
        preview: true,
        not_undoable: finalisationNamed(finalised, estimate.id),
        undone: { tool: 'add_drying_note' },
      });
      const refused = await callTool(client, 'undo_my_last_action', { operation_id: opId() });
      expect(refused.isError).toBe(true);
      expect(problemOf(refused)).toMatchObject({ status: 409, code: 'confirmation_required' });
      expect(await dryingNotes(co.readKey, job.id)).toHaveLength(1);
      const done = await callTool(client, 'undo_my_last_action', {
        operation_id: opId(),
        confirm_skip: finalised.id,
      });
      expect(done.structuredContent).toMatchObject({
        preview: false,
        not_undoable: { entry_id: finalised.id },
        undone: {
          tool: 'add_drying_note',
          effect: `deleted drying note 'Moved two air movers to the hall' on #${job.job_number}`,
        },
      });
      expect(await dryingNotes(co.readKey, job.id)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('effects say exactly what is deleted and what is kept', () => {
  it('a room added to an estimate: the room is deleted, the estimate kept', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Room Rita');
    const estimate = await newEstimate(co.writeKey, job.id);
    await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimate.id}/rooms`)
      .send({ operation_id: opId(), rooms: [{ name: 'Bath', length: 8, width: 6, height: 8 }] })
      .expect(200);
    const effect = `deleted room 'Bath' on #${job.job_number}; kept estimate 'Water mitigation', total ${money(estimate.totals.total_cents)}`;
    expect((await undo(co.writeKey, { preview: true }).expect(200)).body.undone).toMatchObject({
      tool: 'add_rooms',
      record: { type: 'room' },
      effect,
    });
    expect((await undo(co.writeKey).expect(200)).body.undone.effect).toBe(effect);
    const kept = await estimateOf(co.readKey, estimate.id);
    expect(kept.rooms.map((r) => r.name)).toEqual(['Kitchen']);
    expect(kept.totals.total_cents).toBe(estimate.totals.total_cents);
  });

  it('a drying log started on a job with an estimate (the case in issue 42): the estimate is kept, never counted as deleted', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Log Lars');
    const estimate = await newEstimate(co.writeKey, job.id);
    const started = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({
        operation_id: opId(),
        rooms: [{ name: 'Kitchen' }, { name: 'Dining' }],
        start_date: tenDaysAgo(),
      })
      .expect(201);
    expect(started.body.credits.used).toBe(0);
    const withLog = await estimateOf(co.readKey, estimate.id);
    expect(withLog.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Dining']);
    const effect =
      `deleted drying log with 2 drying areas and 1 room on #${job.job_number}; ` +
      `kept 1 room and estimate 'Water mitigation', total ${money(withLog.totals.total_cents)}` +
      (withLog.totals.total_cents === estimate.totals.total_cents
        ? ''
        : ` → ${money(estimate.totals.total_cents)}`);
    const preview = (await undo(co.writeKey, { preview: true }).expect(200)).body.undone;
    expect(preview).toMatchObject({ tool: 'create_drying_log', record: { type: 'drying log' }, effect });
    expect(preview.effect).not.toMatch(/deleted[^;]*estimate/);
    const done = (await undo(co.writeKey).expect(200)).body.undone;
    expect(done).toMatchObject({ effect, credits_refunded: 0 });
    // What it said: the log and the Dining room are gone, the estimate and its Kitchen stay.
    await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/drying-log`).expect(404);
    const kept = await estimateOf(co.readKey, estimate.id);
    expect(kept.rooms.map((r) => r.name)).toEqual(['Kitchen']);
    expect(kept.totals).toEqual(estimate.totals);
  });

  it('each kind of change that also touches other records says which are deleted, put back and kept', async () => {
    const co = await createCompany(t, { credits: 10 });
    const job = await createJob(co.writeKey, 'Kinds Kim');
    const write = as(t, co.writeKey);
    const n = job.job_number;
    const effectNow = async () => (await undo(co.writeKey, { preview: true }).expect(200)).body.undone.effect;

    // A drying log on a job without an estimate makes the estimate: all of it is deleted.
    const started = await write
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }], start_date: tenDaysAgo() })
      .expect(201);
    expect(await effectNow()).toBe(
      `deleted estimate 'Estimate 1' with 1 drying log, 1 drying area and 1 room on #${n}, total $0.00`,
    );
    const estimateId = started.body.estimate.estimate_id as string;

    // Readings that add an area: the area, its readings and its room go; the estimate stays.
    await write
      .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
      .send({
        operation_id: opId(),
        day: 1,
        area: 'Laundry',
        readings: [
          { metric: 'temp_f', value: 70 },
          { metric: 'rh_pct', value: 60 },
          { metric: 'drywall', value: 30 },
        ],
      })
      .expect(201);
    expect(await effectNow()).toBe(
      `deleted drying area 'Laundry' with 3 readings and 1 room on #${n}; kept estimate 'Estimate 1', total $0.00`,
    );

    // Lines: added, changed, removed; the estimate is kept each time, with its total moving.
    const added = (
      await write
        .post(`/api/v1/estimates/${estimateId}/line-items`)
        .send({
          operation_id: opId(),
          line_items: [
            {
              description: 'Baseboard removal',
              room: 'Kitchen',
              unit: 'LF',
              quantity: 40,
              unit_price_cents: 100,
            },
          ],
        })
        .expect(200)
    ).body;
    const lineId = (await estimateOf(co.readKey, estimateId)).rooms[0].lines![0].id;
    const withLine = money(added.totals.total_cents);
    expect(await effectNow()).toBe(
      `deleted line 'Baseboard removal' on #${n}; kept estimate 'Estimate 1', total ${withLine} → $0.00`,
    );
    const changed = (
      await write
        .patch(`/api/v1/estimates/${estimateId}/line-items/${lineId}`)
        .send({ operation_id: opId(), quantity: 20 })
        .expect(200)
    ).body;
    expect(await effectNow()).toBe(
      `restored the earlier line 'Baseboard removal' on #${n}; kept estimate 'Estimate 1', total ${money(changed.totals.total_cents)} → ${withLine}`,
    );
    await write
      .delete(`/api/v1/estimates/${estimateId}/line-items/${lineId}`)
      .send({ operation_id: opId() })
      .expect(200);
    expect(await effectNow()).toBe(
      `put back line 'Baseboard removal' on #${n}; kept estimate 'Estimate 1', total $0.00 → ${money(changed.totals.total_cents)}`,
    );

    // A note corrected gets its earlier text back; a note retracted is put back.
    const note = (
      await write
        .post(`/api/v1/jobs/${job.id}/notes`)
        .send({ operation_id: opId(), text: 'First text' })
        .expect(201)
    ).body;
    await write
      .patch(`/api/v1/jobs/${job.id}/notes/${note.id}`)
      .send({ operation_id: opId(), text: 'Second text' })
      .expect(200);
    expect(await effectNow()).toBe(`restored the earlier note 'First text' on #${n}`);
    await write.delete(`/api/v1/jobs/${job.id}/notes/${note.id}`).send({ operation_id: opId() }).expect(200);
    expect(await effectNow()).toBe(`put back note 'Second text' on #${n}`);

    // A contact: the job's search text follows it, which is no change worth a word.
    await write
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), name: 'Tom Adjuster', role: 'adjuster' })
      .expect(200);
    expect(await effectNow()).toBe(`deleted contact 'Tom Adjuster' on #${n}`);

    // A chamber: the chamber goes, its areas stay.
    await write
      .put(`/api/v1/jobs/${job.id}/drying-log/chambers`)
      .send({
        operation_id: opId(),
        chambers: [{ name: 'A', category: 1, areas: [{ name: 'Kitchen' }, { name: 'Laundry' }] }],
      })
      .expect(200);
    expect(await effectNow()).toBe(`deleted drying chamber 'A' on #${n}; kept 2 drying areas`);
    const chamberUndone = (await undo(co.writeKey).expect(200)).body.undone.effect;
    expect(chamberUndone).toBe(`deleted drying chamber 'A' on #${n}; kept 2 drying areas`);
    const log = (await write.get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body;
    expect(log.areas.map((a: { name: string }) => a.name).sort()).toEqual(['Kitchen', 'Laundry']);
  });
});
