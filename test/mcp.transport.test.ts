/** The MCP endpoint through the official client: tools from the spec, same pipeline as HTTP. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { operations } from '../src/generated/operations';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from './support/app';

let t: TestApp;
let co: TestCompany;
const clients: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'jms-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function problemOf(result: CallToolResult): { code: string; errors?: { path: string }[] } {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [content] = result.content;
  if (content.type !== 'text') throw new Error('expected a text problem');
  return JSON.parse(content.text);
}

function bodyOf(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBeFalsy();
  const [content] = result.content;
  if (content.type !== 'text') throw new Error('expected text content');
  expect(JSON.parse(content.text)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

describe('tools/list', () => {
  it('offers every MCP tool of the spec to a write key, with schemas and all four hints', async () => {
    const client = await connect(co.writeKey);
    expect(client.getInstructions()).toContain('get_guide');
    const { tools } = await client.listTools();
    const expected = Object.values(operations).filter((op) => op.mcp && op.scope !== 'admin');
    expect(tools.map((tool) => tool.name).sort()).toEqual(expected.map((op) => op.name).sort());
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof tool.annotations![hint]).toBe('boolean');
      }
    }
    const getJob = tools.find((tool) => tool.name === 'get_job')!;
    expect(getJob.inputSchema.required).toEqual(['job_id']);
    const createJob = tools.find((tool) => tool.name === 'create_job')!;
    expect(createJob.inputSchema.required).toEqual(['operation_id']);
    expect(createJob.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
  });

  it('shows a read key only the read tools', async () => {
    const { tools } = await (await connect(co.readKey)).listTools();
    const readTools = Object.values(operations).filter((op) => op.mcp && op.scope === 'read');
    expect(tools.map((tool) => tool.name).sort()).toEqual(readTools.map((op) => op.name).sort());
    expect(tools.every((tool) => tool.annotations!.readOnlyHint)).toBe(true);
  });
});

describe('tools/call', () => {
  it('runs the same handlers as HTTP', async () => {
    const client = await connect(co.writeKey);
    const context = bodyOf(await call(client, 'get_context', {}));
    expect(context).toMatchObject({ person: { name: 'Avery Stone' }, key: { scope: 'write' } });
    const guide = bodyOf(await call(client, 'get_guide', {}));
    expect((guide.tools as { name: string }[]).map((tool) => tool.name)).toContain('create_job');

    const job = bodyOf(await call(client, 'create_job', { operation_id: opId(), customer_name: 'Tom Nguyen', customer_phone: '217.555.0199', loss_type: 'sewage' }));
    const overHttp = await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200);
    expect(overHttp.body).toEqual(job);
    expect(bodyOf(await call(client, 'get_job', { job_id: `#${job.job_number}` }))).toEqual(job);

    const found = bodyOf(await call(client, 'find_jobs', { q: '2175550199', limit: 5 }));
    expect((found.data as { id: string }[]).map((j) => j.id)).toEqual([job.id]);
    const feed = bodyOf(await call(client, 'list_changes', { kind: 'changes' }));
    expect((feed.data as { action: string; person: { name: string }; via_key: boolean }[]).at(-1)).toMatchObject({
      action: 'job.created',
      person: { name: 'Avery Stone' },
      via_key: true,
    });
    for (const tool of ['list_team', 'list_job_statuses', 'list_referral_sources']) expect(bodyOf(await call(client, tool, {})).data).toEqual(expect.any(Array));

    const undone = bodyOf(await call(client, 'undo_my_last_action', {}));
    expect(undone).toMatchObject({ undone: { tool: 'create_job' } });
    expect(problemOf(await call(client, 'get_job', { job_id: job.id as string })).code).toBe('not_found');
  });

  it('answers problems as isError results with the problem as text', async () => {
    const writer = await connect(co.writeKey);
    const reader = await connect(co.readKey);
    expect(problemOf(await call(reader, 'create_job', { operation_id: opId() })).code).toBe('write_key_required');

    const missing = problemOf(await call(writer, 'create_job', { customer_name: 'X' }));
    expect(missing.code).toBe('invalid_request');
    expect(missing.errors!.map((e) => e.path)).toEqual(['/operation_id']);
    const wrongType = problemOf(await call(writer, 'create_job', { operation_id: opId(), customer_name: 5, surprise: true }));
    expect(wrongType.errors!.map((e) => e.path).sort()).toEqual(['/customer_name', '/surprise']);
    expect(problemOf(await call(writer, 'find_jobs', { limit: 0 })).errors![0].path).toBe('/limit');
    expect(problemOf(await call(writer, 'get_job', { job_id: '#4242' })).code).toBe('not_found');
    expect(problemOf(await call(writer, 'create_job', { operation_id: opId(), assignee: 'Nobody Known' })).code).toBe('unknown_teammate');
    expect(problemOf(await call(writer, 'no_such_tool', {})).code).toBe('not_found');

    const other = await createCompany(t);
    const theirs = await as(t, other.writeKey).post('/api/v1/jobs').send({ operation_id: opId() }).expect(201);
    expect(problemOf(await call(writer, 'get_job', { job_id: theirs.body.id })).code).toBe('not_found');
  });

  it('shares idempotency with HTTP', async () => {
    const client = await connect(co.writeKey);
    const args = { operation_id: opId(), customer_name: 'Ben Carter', claim_number: 'CF-88213' };
    const first = bodyOf(await call(client, 'create_job', args));
    expect(bodyOf(await call(client, 'create_job', args))).toEqual(first);
    const { operation_id, ...rest } = args;
    const http = await as(t, co.writeKey).post('/api/v1/jobs').send({ ...rest, operation_id }).expect(201);
    expect(http.headers['idempotent-replayed']).toBe('true');
    expect(http.body).toEqual(first);
    expect(problemOf(await call(client, 'create_job', { ...args, claim_number: 'CF-00000' })).code).toBe('operation_id_conflict');
    const matches = await as(t, co.readKey).get('/api/v1/jobs?q=CF-88213').expect(200);
    expect(matches.body.data).toHaveLength(1);
  });
});

describe('the /mcp endpoint over HTTP', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };

  it('answers 401 with WWW-Authenticate without a valid key', async () => {
    for (const auth of [undefined, 'Bearer jms_unknown', 'Basic abc']) {
      const req = t.http.post('/mcp').set('Accept', 'application/json, text/event-stream').send(initialize);
      const res = await (auth ? req.set('Authorization', auth) : req).expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('answers 405 to GET and DELETE (the endpoint is stateless)', async () => {
    await t.http.get('/mcp').set('Authorization', `Bearer ${co.readKey}`).expect(405);
    await t.http.delete('/mcp').set('Authorization', `Bearer ${co.readKey}`).expect(405);
  });
});
