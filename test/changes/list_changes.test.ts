/**
 * The change feed (DESIGN §5): one feed per company, oldest first, attributed to the key's owner,
 * narrowed by kind, paged with a next_cursor that is always present, and a poller that follows
 * next_cursor never misses an entry, not even one committed late by a slower transaction.
 */
import { changeEntries, type ChangeInput, type ChangeKind } from '../../src/platform/changes';
import { runTogether } from '../../src/infrastructure/db/together';
import { findCaller } from '../../src/platform/auth';
import { as, createCompany, feedSettled, opId, startApp, type TestApp } from '../support/app';
import type { components } from '../../sdk/src/schema';
import { operations, type OperationName } from '../../src/generated/operations';
import { expectChangeData, type CallTool } from '../support/change-data';
import type { Caller } from '../../src/platform/caller';

let t: TestApp;

type Entry = components['schemas']['ChangeEntry'];

interface Page {
  data: Entry[];
  next_cursor: string;
}

const KINDS: ChangeKind[] = ['notes', 'visits', 'files', 'schedule', 'changes', 'estimates'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function page(key: string, params: Record<string, string | number | undefined> = {}): Promise<Page> {
  const query = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
  const res = await as(t, key).get(`/api/v1/changes${query ? `?${query}` : ''}`);
  expect(res.status).toBe(200);
  expect(typeof res.body.next_cursor).toBe('string');
  expect(res.body.next_cursor.length).toBeGreaterThan(0);
  return res.body as Page;
}

/** Every entry of the feed, following next_cursor. */
async function everything(key: string, params: Record<string, string | number> = {}): Promise<Entry[]> {
  await feedSettled(t);
  const all: Entry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const next = await page(key, { ...params, limit: 100, cursor });
    all.push(...next.data);
    cursor = next.next_cursor;
    if (next.data.length === 0) return all;
  }
}

async function createJob(
  key: string,
  name: string,
): Promise<{ id: string; job_number: number; title: string }> {
  return (
    await as(t, key).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: name }).expect(201)
  ).body;
}

async function callerOf(key: string): Promise<Caller> {
  const caller = await findCaller(t.db, key);
  if (!caller) throw new Error('key not found');
  return caller;
}

/** An entry a test writes straight to the feed; its data is a note entry's, as the spec wants. */
function testEntry(kind: ChangeKind, summary: string, job?: { id: string; job_number: number }): ChangeInput {
  return { kind, data: { action: 'note.added', note_id: 'note_test0' }, summary, job };
}

/** A tool called over HTTP with MCP-style merged arguments, split by the operation table. */
function httpTool(key: string): CallTool {
  return async <T>(tool: string, args: Record<string, unknown>): Promise<T> => {
    const op = operations[tool as OperationName];
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(args[name])));
    const pick = (names: string[]) =>
      Object.fromEntries(names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]));
    const client = as(t, key);
    const method = op.method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete';
    let req = client[method](path).query(pick(op.queryParams));
    if (op.hasBody) req = req.send(pick(op.bodyParams));
    const res = await req;
    if (res.status !== op.successStatus)
      throw new Error(`${tool} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as T;
  };
}

/** Appends entries the way the write pipeline does, in a transaction of its own. */
async function append(caller: Caller, entries: ChangeInput[]): Promise<void> {
  await t.db.transaction(async (trx) => {
    await runTogether(trx, [changeEntries(trx, caller, entries)]);
  });
}

async function expectBadRequest(key: string, query: string, path: string): Promise<void> {
  const res = await as(t, key).get(`/api/v1/changes?${query}`);
  expect({ query, status: res.status, code: res.body.code }).toEqual({
    query,
    status: 400,
    code: 'invalid_request',
  });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
}

beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('list_changes', () => {
  it('lists entries oldest first with kind, action, summary, job, person, via_key, data and at', async () => {
    const co = await createCompany(t);
    const from = Date.now();
    const a = await createJob(co.writeKey, 'Alpha Ames');
    const b = await createJob(co.writeKey, 'Bravo Baker');
    const c = await createJob(co.otherWriteKey, 'Charlie Chu');
    const until = Date.now();

    await feedSettled(t);
    const feed = await page(co.readKey);
    expect(feed.data).toEqual([
      {
        id: expect.any(String),
        kind: 'changes',
        action: 'job.created',
        summary: `Created job #${a.job_number} Alpha Ames`,
        job: { id: a.id, job_number: a.job_number },
        data: { action: 'job.created', title: a.title, status: { id: expect.any(String), name: 'New' } },
        person: { id: co.people[0].id, name: 'Avery Stone' },
        via_key: true,
        via_client: null,
        at: expect.any(String),
        at_local: expect.any(String),
      },
      {
        id: expect.any(String),
        kind: 'changes',
        action: 'job.created',
        summary: `Created job #${b.job_number} Bravo Baker`,
        job: { id: b.id, job_number: b.job_number },
        data: { action: 'job.created', title: b.title, status: { id: expect.any(String), name: 'New' } },
        person: { id: co.people[0].id, name: 'Avery Stone' },
        via_key: true,
        via_client: null,
        at: expect.any(String),
        at_local: expect.any(String),
      },
      {
        id: expect.any(String),
        kind: 'changes',
        action: 'job.created',
        summary: `Created job #${c.job_number} Charlie Chu`,
        job: { id: c.id, job_number: c.job_number },
        data: { action: 'job.created', title: c.title, status: { id: expect.any(String), name: 'New' } },
        person: { id: co.people[1].id, name: 'Dana Brooks' },
        via_key: true,
        via_client: null,
        at: expect.any(String),
        at_local: expect.any(String),
      },
    ]);
    expect([a.job_number, b.job_number, c.job_number]).toEqual([1, 2, 3]);
    expect(new Set(feed.data.map((e) => e.id)).size).toBe(3);
    const times = feed.data.map((e) => Date.parse(e.at));
    for (const time of times) {
      expect(time).toBeGreaterThanOrEqual(from - 1000);
      expect(time).toBeLessThanOrEqual(until + 1000);
    }
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    for (const entry of feed.data) expect(entry.at).toBe(new Date(entry.at).toISOString());
    // The same moment on the company's clock (to the second), with the offset get_context gives.
    const offset = (await as(t, co.readKey).get('/api/v1/context').expect(200)).body.company.local_time.slice(
      -6,
    );
    for (const entry of feed.data as { at: string; at_local: string }[]) {
      expect(entry.at_local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
      expect(entry.at_local.slice(-6)).toBe(offset);
      expect(Date.parse(entry.at_local)).toBe(Math.floor(Date.parse(entry.at) / 1000) * 1000);
    }
    // A read key and a write key of the company see the same feed.
    expect((await page(co.writeKey)).data).toEqual(feed.data);
  });

  it('narrows the feed with kind, and keeps the order within a kind', async () => {
    const co = await createCompany(t);
    const caller = await callerOf(co.writeKey);
    const job = await createJob(co.writeKey, 'Kind Kim');
    const ref = { id: job.id, job_number: job.job_number };
    for (const kind of KINDS) {
      await append(caller, [testEntry(kind, `${kind} 1`, ref), testEntry(kind, `${kind} 2`)]);
    }
    const all = await everything(co.readKey);
    expect(all.map((e) => e.summary)).toEqual([
      `Created job #${job.job_number} Kind Kim`,
      ...KINDS.flatMap((kind) => [`${kind} 1`, `${kind} 2`]),
    ]);

    for (const kind of KINDS) {
      const only = await page(co.readKey, { kind });
      expect(only.data.every((e) => e.kind === kind)).toBe(true);
      const expected = all.filter((e) => e.kind === kind);
      expect(only.data).toEqual(expected);
      expect(only.data.length).toBe(kind === 'changes' ? 3 : 2);
      // Paging inside a kind, one at a time, gives the same entries.
      const oneByOne: Entry[] = [];
      let cursor: string | undefined;
      for (;;) {
        const next = await page(co.readKey, { kind, limit: 1, cursor });
        oneByOne.push(...next.data);
        cursor = next.next_cursor;
        if (next.data.length === 0) break;
      }
      expect(oneByOne).toEqual(expected);
    }
    const withoutJob = all.find((e) => e.summary === 'notes 2');
    expect(withoutJob?.job).toBeNull();
    expect(all.find((e) => e.summary === 'notes 1')?.job).toEqual(ref);
  });

  it('always returns next_cursor: on an empty feed, on the last page and on a page after the end', async () => {
    const co = await createCompany(t);
    const empty = await page(co.readKey);
    expect(empty.data).toEqual([]);
    // An empty feed's cursor picks up the first entry once there is one.
    const first = await createJob(co.writeKey, 'First Fay');
    await feedSettled(t);
    const afterEmpty = await page(co.readKey, { cursor: empty.next_cursor });
    expect(afterEmpty.data.map((e) => e.job?.id)).toEqual([first.id]);

    const past = await page(co.readKey, { cursor: afterEmpty.next_cursor });
    expect(past.data).toEqual([]);
    // And again past the end: still a cursor, still the same place.
    const pastAgain = await page(co.readKey, { cursor: past.next_cursor });
    expect(pastAgain.data).toEqual([]);
    const kindPast = await page(co.readKey, { cursor: past.next_cursor, kind: 'notes' });
    expect(kindPast.data).toEqual([]);

    const second = await createJob(co.writeKey, 'Second Sid');
    const third = await createJob(co.otherWriteKey, 'Third Tia');
    await feedSettled(t);
    // Every cursor handed out past the end continues with exactly the newer entries.
    for (const cursor of [past.next_cursor, pastAgain.next_cursor, kindPast.next_cursor]) {
      expect((await page(co.readKey, { cursor })).data.map((e) => e.job?.id)).toEqual([second.id, third.id]);
    }
  });

  it('pages with limit, oldest first, without gaps or repeats; limit defaults to 25 and is at most 100', async () => {
    const co = await createCompany(t);
    const caller = await callerOf(co.writeKey);
    for (let i = 0; i < 7; i++) await createJob(i % 2 ? co.otherWriteKey : co.writeKey, `Pager ${i}`);
    await feedSettled(t);
    const all = (await page(co.readKey, { limit: 100 })).data;
    expect(all.map((e) => e.summary)).toEqual(
      Array.from({ length: 7 }, (_, i) => `Created job #${i + 1} Pager ${i}`),
    );

    const p1 = await page(co.readKey, { limit: 3 });
    const p2 = await page(co.readKey, { limit: 3, cursor: p1.next_cursor });
    const p3 = await page(co.readKey, { limit: 3, cursor: p2.next_cursor });
    const p4 = await page(co.readKey, { limit: 3, cursor: p3.next_cursor });
    expect([p1, p2, p3, p4].map((p) => p.data.length)).toEqual([3, 3, 1, 0]);
    expect([...p1.data, ...p2.data, ...p3.data]).toEqual(all);
    // A cursor can be used again: the same page comes back.
    expect((await page(co.readKey, { limit: 3, cursor: p1.next_cursor })).data).toEqual(p2.data);

    await append(
      caller,
      Array.from({ length: 30 }, (_, i) => testEntry('notes', `Bulk ${i}`)),
    );
    await feedSettled(t);
    const byDefault = await page(co.readKey);
    expect(byDefault.data).toHaveLength(25);
    expect(byDefault.data.slice(0, 7)).toEqual(all);
    const rest = await page(co.readKey, { cursor: byDefault.next_cursor });
    expect(rest.data.map((e) => e.summary)).toEqual(Array.from({ length: 12 }, (_, i) => `Bulk ${i + 18}`));
    expect((await page(co.readKey, { limit: 100 })).data).toHaveLength(37);

    await expectBadRequest(co.readKey, 'limit=0', '/query/limit');
    await expectBadRequest(co.readKey, 'limit=101', '/query/limit');
    await expectBadRequest(co.readKey, 'limit=ten', '/query/limit');
  });

  it('answers 400 for a cursor it did not hand out', async () => {
    const co = await createCompany(t);
    await createJob(co.writeKey, 'Cursor Cal');
    await feedSettled(t);
    const b64 = (value: string) => Buffer.from(value).toString('base64url');
    const bad = [
      'garbage',
      'not base64 !!',
      b64('not json'),
      b64('{"a":1}'),
      b64('[1,2]'),
      b64('null'),
      b64('{"txid":"x","seq":"y"}'),
      b64('{"txid":1.5,"seq":0}'),
      b64('{"txid":1,"seq":-1e400}'),
      b64('{"txid":99999999999999999999999,"seq":1}'),
      'x'.repeat(201),
    ];
    for (const cursor of bad)
      await expectBadRequest(co.readKey, `cursor=${encodeURIComponent(cursor)}`, '/query/cursor');
    // The feed itself is unaffected.
    expect((await page(co.readKey)).data).toHaveLength(1);
  });

  it('answers 400 for an unknown kind or parameter', async () => {
    const co = await createCompany(t);
    for (const kind of ['gossip', 'Notes', 'NOTES', 'note', ''])
      await expectBadRequest(co.readKey, `kind=${kind}`, '/query/kind');
    await expectBadRequest(co.readKey, 'after=2020-01-01', '/query/after');
    await expectBadRequest(co.readKey, 'since=yesterday', '/query/since');
  });

  it("never shows another company's changes, also with that company's cursors", async () => {
    const mine = await createCompany(t);
    const theirs = await createCompany(t);
    const myJob = await createJob(mine.writeKey, 'Mine Moe');
    const theirCaller = await callerOf(theirs.writeKey);
    const theirJob = await createJob(theirs.writeKey, 'Secret Sue');
    await append(theirCaller, [
      testEntry('notes', 'Their secret note', { id: theirJob.id, job_number: theirJob.job_number }),
    ]);
    await createJob(theirs.otherWriteKey, 'Secret Sam');

    const seenByMe = await everything(mine.readKey);
    expect(seenByMe.map((e) => e.summary)).toEqual([`Created job #${myJob.job_number} Mine Moe`]);
    for (const kind of KINDS) {
      for (const entry of (await page(mine.readKey, { kind })).data)
        expect(entry.person?.id).not.toBe(theirs.people[0].id);
    }
    expect((await page(mine.readKey, { kind: 'notes' })).data).toEqual([]);

    const seenByThem = await everything(theirs.readKey);
    expect(seenByThem.map((e) => e.summary)).toEqual([
      `Created job #1 Secret Sue`,
      'Their secret note',
      'Created job #2 Secret Sam',
    ]);
    // Their cursor, used with my key, still shows only my feed.
    const theirFirst = await page(theirs.readKey, { limit: 1 });
    const mixed = await everything(mine.readKey, { cursor: theirFirst.next_cursor });
    for (const entry of mixed) expect(entry.job?.id).not.toBe(theirJob.id);
    expect(mixed.every((e) => e.person?.id === mine.people[0].id || e.person?.id === mine.people[1].id)).toBe(
      true,
    );
  });
});

describe('a poller following next_cursor', () => {
  it('never misses an entry, not even one committed late by a slow transaction', async () => {
    const co = await createCompany(t);
    const caller = await callerOf(co.otherWriteKey);
    const CREATES = 30;
    const SLOW_ENTRIES = 2;
    const expectedTotal = CREATES + SLOW_ENTRIES;

    const polled: Entry[] = [];
    const polledNotes: Entry[] = [];
    let nonEmptyPages = 0;
    let writing = true;

    /** Follows next_cursor while writes go on; then until the whole feed has been seen. */
    async function poll(
      into: Entry[],
      params: Record<string, string | number>,
      until: () => boolean,
    ): Promise<void> {
      let cursor: string | undefined;
      const deadline = Date.now() + 20_000;
      for (;;) {
        const next = await page(co.readKey, { ...params, cursor });
        into.push(...next.data);
        if (next.data.length > 0 && into === polled) nonEmptyPages++;
        cursor = next.next_cursor;
        if (!writing && until() && next.data.length === 0) return;
        if (Date.now() > deadline) throw new Error(`poller gave up with ${into.length} entries`);
        await sleep(2);
      }
    }
    const poller = poll(polled, { limit: 4 }, () => polled.length >= expectedTotal);
    const notesPoller = poll(
      polledNotes,
      { limit: 1, kind: 'notes' },
      () => polledNotes.length >= SLOW_ENTRIES,
    );

    const create = (i: number) =>
      as(t, i % 2 ? co.writeKey : co.otherWriteKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: `Poll ${i}` })
        .expect(201);

    // Some writes, then a slow transaction that writes its first entry early and commits late,
    // while the other writes and the polls go on.
    const early = Array.from({ length: 10 }, (_, i) => create(i));
    await sleep(5);
    let slowStarted!: () => void;
    const slowHasWritten = new Promise<void>((resolve) => (slowStarted = resolve));
    const slow = t.db.transaction(async (trx) => {
      await runTogether(trx, [changeEntries(trx, caller, [testEntry('notes', 'slow entry 1')])]);
      slowStarted();
      await sleep(300);
      await runTogether(trx, [changeEntries(trx, caller, [testEntry('notes', 'slow entry 2')])]);
    });
    await Promise.race([slowHasWritten, sleep(1000)]);
    const late = Array.from({ length: CREATES - 10 }, (_, i) => create(10 + i));
    await Promise.all([slow, ...early, ...late]);
    writing = false;
    await Promise.all([poller, notesPoller]);

    const all = await everything(co.readKey);
    expect(all).toHaveLength(expectedTotal);
    expect(new Set(all.map((e) => e.id)).size).toBe(expectedTotal);
    expect(all.filter((e) => e.action === 'job.created')).toHaveLength(CREATES);
    expect(all.filter((e) => e.summary.startsWith('slow entry')).map((e) => e.summary)).toEqual([
      'slow entry 1',
      'slow entry 2',
    ]);

    // The union of what the poller saw is the whole feed, in order, each entry once.
    expect(polled.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(polled).toEqual(all);
    expect(polledNotes).toEqual(all.filter((e) => e.kind === 'notes'));
    // The poller really ran alongside the writes.
    expect(nonEmptyPages).toBeGreaterThan(2);

    // Both keys' creates are attributed to their owners.
    const created = all.filter((e) => e.action === 'job.created');
    expect(created.filter((e) => e.person?.name === 'Avery Stone')).toHaveLength(CREATES / 2);
    expect(created.filter((e) => e.person?.name === 'Dana Brooks')).toHaveLength(CREATES / 2);
    expect(new Set(created.map((e) => e.job?.job_number)).size).toBe(CREATES);
  });
});

describe('change data', () => {
  it('gives each action its details in list_changes and get_job_activity over HTTP', async () => {
    const co = await createCompany(t);
    await expectChangeData(co, httpTool(co.writeKey), httpTool(co.readKey), () => feedSettled(t));
  });

  it('answers data null for entries written before entries carried it', async () => {
    const co = await createCompany(t);
    const job = await createJob(co.writeKey, 'Old Olga');
    // As migration 006 left the rows written before it.
    await t.db('change_entries').where({ company_id: co.id }).update({ data: null });
    const [entry] = await everything(co.readKey);
    expect(entry).toMatchObject({ action: 'job.created', data: null });
    const activity = await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity`).expect(200);
    expect(activity.body.data[0]).toMatchObject({ action: 'job.created', data: null });
  });
});
