/** get_context, get_guide and the company lists. */
import { operations } from '../../src/generated/operations';
import { mcpTools } from '../../src/generated/mcp-tools';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 7 });
});
afterAll(() => t.close());

describe('get_context', () => {
  it('get_context tells whose key it is', async () => {
    const write = await as(t, co.writeKey).get('/api/v1/context').expect(200);
    expect(write.body).toEqual({
      person: { id: co.people[0].id, name: 'Avery Stone', role: 'Owner' },
      company: {
        id: co.id,
        name: co.name,
        timezone: 'America/Chicago',
        today: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        local_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[56]:00$/),
      },
      key: { id: expect.stringMatching(/^key_/), prefix: co.writeKey.slice(0, 12), scope: 'write' },
      chat: { connected: false, new_note: false },
      credits: { remaining: 7 },
    });
    expect((await as(t, co.readKey).get('/api/v1/context').expect(200)).body.key.scope).toBe('read');
  });
});

describe('get_guide', () => {
  it('get_guide lists exactly the tools the key can use, with naming and recipes', async () => {
    type Toolset = { name: string; tools: string[] };
    const namesOf = (guide: { toolsets: Toolset[] }) => guide.toolsets.flatMap((set) => set.tools);
    // What an assistant can call: every tool but the admin ones and the HTTP-only upload.
    const tools = Object.values(operations).filter((op) => op.scope !== 'admin' && op.mcp);
    const write = (await as(t, co.writeKey).get('/api/v1/guide').expect(200)).body;
    expect(namesOf(write).sort()).toEqual(tools.map((op) => op.name).sort());
    // By toolset, in the order of the MCP tool list, each tool named once.
    expect(namesOf(write)).toEqual(mcpTools.map((tool) => tool.name));
    expect(write.toolsets.find((set: Toolset) => set.name === 'jobs').tools).toContain('create_job');
    expect(write.naming.join(' ')).toMatch(/cents/);
    expect(write.recipes.map((r: { title: string }) => r.title)).toContain('Start a new job');
    // Data only: the Markdown of the same guide is what MCP shows as its text (test/mcp).
    expect(write).not.toHaveProperty('text');

    const read = (await as(t, co.readKey).get('/api/v1/guide').expect(200)).body;
    expect(namesOf(read).every((name) => operations[name as keyof typeof operations].scope === 'read')).toBe(
      true,
    );
    expect(read.recipes.map((r: { title: string }) => r.title)).not.toContain('Start a new job');
  });
});

describe('list_team', () => {
  it('list_team lists teammates by name', async () => {
    const team = (await as(t, co.readKey).get('/api/v1/team').expect(200)).body;
    expect(team).toEqual({
      data: co.people
        .map((p) => ({ id: p.id, name: p.name, role: p.role, responsibilities: [] }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      next_cursor: null,
    });
  });
});

describe('list_job_statuses', () => {
  it('list_job_statuses counts open jobs in board order; cancelled jobs are not counted', async () => {
    const fresh = await createCompany(t);
    for (let i = 0; i < 3; i++)
      await as(t, fresh.writeKey).post('/api/v1/jobs').send({ operation_id: opId() }).expect(201);
    const jobId = (await as(t, fresh.readKey).get('/api/v1/jobs?limit=1').expect(200)).body.data[0].id;
    await t.db('jobs').where({ id: jobId }).update({ cancelled_at: t.db.fn.now() });
    const board = (await as(t, fresh.readKey).get('/api/v1/job-statuses').expect(200)).body.data;
    expect(board.map((s: { name: string; open_jobs: number }) => [s.name, s.open_jobs])).toEqual([
      ['New', 2],
      ['Inspection', 0],
      ['Mitigation', 0],
      ['Drying', 0],
      ['Rebuild', 0],
      ['Invoicing', 0],
      ['Closed', 0],
    ]);
  });
});

describe('list_referral_sources', () => {
  it('list_referral_sources lists the company sources in order', async () => {
    const sources = (await as(t, co.readKey).get('/api/v1/referral-sources').expect(200)).body.data;
    expect(sources.map((s: { name: string }) => s.name)).toEqual([
      'Insurance carrier',
      'Plumber',
      'Property manager',
      'Repeat customer',
      'Web search',
      'Word of mouth',
    ]);
  });
});
