/** The change feed: oldest first, kinds, cursors, and a poller that never misses an entry. */
import { changeEntries } from '../src/platform/changes';
import type { Caller } from '../src/platform/handler';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from './support/app';

let t: TestApp;
let co: TestCompany;

interface Entry {
  id: string;
  summary: string;
}

async function page(key: string, query: string): Promise<{ data: Entry[]; next_cursor: string }> {
  return (await as(t, key).get(`/api/v1/changes${query}`).expect(200)).body;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('list_changes', () => {
  it('lists entries oldest first, attributed to the key owner, and pages with next_cursor', async () => {
    for (const name of ['First', 'Second', 'Third']) await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: name }).expect(201);
    await as(t, co.otherWriteKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Fourth' }).expect(201);
    const all = await page(co.readKey, '?limit=100');
    expect(all.data.map((e) => e.summary)).toEqual(['Created job #1 First', 'Created job #2 Second', 'Created job #3 Third', 'Created job #4 Fourth']);
    expect(all.data[0]).toMatchObject({ kind: 'changes', action: 'job.created', job: { job_number: 1 }, person: { name: 'Avery Stone' }, via_key: true });
    expect(all.data[3]).toMatchObject({ person: { name: 'Dana Brooks' } });

    const first = await page(co.readKey, '?limit=3');
    expect(first.data).toHaveLength(3);
    const second = await page(co.readKey, `?limit=3&cursor=${first.next_cursor}`);
    expect(second.data.map((e) => e.summary)).toEqual(['Created job #4 Fourth']);
    const empty = await page(co.readKey, `?cursor=${second.next_cursor}`);
    expect(empty.data).toEqual([]);
    expect(empty.next_cursor).toEqual(expect.any(String));
    await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Fifth' }).expect(201);
    expect((await page(co.readKey, `?cursor=${empty.next_cursor}`)).data.map((e) => e.summary)).toEqual(['Created job #5 Fifth']);
  });

  it('narrows by kind and keeps a cursor for the kind', async () => {
    const notes = await page(co.readKey, '?kind=notes');
    expect(notes.data).toEqual([]);
    expect(notes.next_cursor).toEqual(expect.any(String));
    expect((await page(co.readKey, '?kind=changes&limit=100')).data.length).toBeGreaterThan(0);
  });

  it('refuses a bad cursor or kind, and never shows another company', async () => {
    expect((await as(t, co.readKey).get('/api/v1/changes?cursor=garbage').expect(400)).body.errors[0].path).toBe('/query/cursor');
    await as(t, co.readKey).get('/api/v1/changes?kind=gossip').expect(400);
    const other = await createCompany(t);
    expect((await page(other.readKey, '')).data).toEqual([]);
  });
});

describe('a poller', () => {
  it('never misses an entry, not even one committed later by a slower transaction', async () => {
    const company = await createCompany(t);
    const owner = await t.db('people').where({ id: company.people[0].id }).first();
    const key = await t.db('api_keys').where({ person_id: owner.id, scope: 'write' }).first();
    const caller: Caller = {
      keyId: key.id,
      keyPrefix: key.prefix,
      scope: 'write',
      personId: owner.id,
      personName: owner.name,
      personRole: owner.role,
      companyId: company.id,
      companyName: company.name,
      timezone: 'America/Chicago',
    };

    const seen: Entry[] = [];
    let done = false;
    const poller = (async () => {
      let cursor = '';
      for (;;) {
        const finishing = done;
        const result = await page(company.readKey, `?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...result.data);
        cursor = result.next_cursor;
        if (finishing && result.data.length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    const slow = t.db.transaction(async (trx) => {
      await changeEntries(trx, caller, [{ kind: 'notes', action: 'test.slow', summary: 'slow entry' }]);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    const writes = Array.from({ length: 24 }, (_, i) =>
      as(t, i % 2 ? company.writeKey : company.otherWriteKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: `Poll ${i}` }).expect(201),
    );
    await Promise.all([slow, ...writes]);
    done = true;
    await poller;

    const all = (await as(t, company.readKey).get('/api/v1/changes?limit=100').expect(200)).body.data as Entry[];
    expect(all).toHaveLength(25);
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(new Set(all.map((e) => e.id)).size).toBe(25);
  });
});
