/**
 * The 2026-07-28 revision of MCP on the wire (raw POSTs, as the specification states them):
 * server/discover, the cache hints, the standard headers (Mcp-Method, Mcp-Name,
 * MCP-Protocol-Version) and their refusals, an unsupported revision, an `initialize` that asks
 * for 2026-07-28, the tools' schemas in JSON Schema 2020-12, and the same tools for the same key,
 * assistant token, toolsets and read-only choice in both eras. The official client in either era
 * is tested in mcp-endpoint and the other files of this folder.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { LEGACY_REVISION, MODERN_REVISION } from '../support/mcp';
import { tokensFor } from '../support/oauth';

const CLIENT_INFO = { name: 'wire-test', version: '1.0.0' };

let t: TestApp;
let co: TestCompany;
let nextId = 1;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(async () => {
  await t?.close();
});

interface Envelope {
  /** The revision named in `_meta` (and, unless `headers` says otherwise, MCP-Protocol-Version). */
  revision?: string;
  /** Headers to send instead of the standard ones; `null` leaves one out. */
  headers?: Record<string, string | null>;
  query?: string;
}

/** One 2026-07-28 request: the `_meta` envelope and the standard headers, as a modern client sends it. */
function modern(key: string, method: string, params: Record<string, unknown> = {}, options: Envelope = {}) {
  const revision = options.revision ?? MODERN_REVISION;
  const name = typeof params.name === 'string' ? params.name : undefined;
  const standard: Record<string, string | null> = {
    'MCP-Protocol-Version': revision,
    'Mcp-Method': method,
    ...(name ? { 'Mcp-Name': name } : {}),
    ...options.headers,
  };
  let req = t.http
    .post(`/mcp${options.query ?? ''}`)
    .set('Authorization', `Bearer ${key}`)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream');
  for (const [header, value] of Object.entries(standard)) if (value !== null) req = req.set(header, value);
  return req.send({
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': revision,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** A 2025-11-25 request (initialize, then stateless requests with the version header). */
function legacy(key: string, method: string, params: Record<string, unknown> = {}, options: Envelope = {}) {
  let req = t.http
    .post(`/mcp${options.query ?? ''}`)
    .set('Authorization', `Bearer ${key}`)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('MCP-Protocol-Version', LEGACY_REVISION);
  for (const [header, value] of Object.entries(options.headers ?? {}))
    if (value !== null) req = req.set(header, value);
  return req.send({ jsonrpc: '2.0', id: nextId++, method, params });
}

/** The JSON-RPC answer of a response, whether sent as JSON or as one event of a stream. */
function answerOf(res: Response): {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
} {
  if (res.headers['content-type']?.startsWith('text/event-stream')) {
    const data = res.text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)))
      .find((message) => 'result' in message || 'error' in message);
    return data;
  }
  return res.body;
}

function resultOf(res: Response): Record<string, unknown> {
  expect(res.status).toBe(200);
  const answer = answerOf(res);
  if (!answer.result) throw new Error(`expected a result, got ${JSON.stringify(answer)}`);
  return answer.result;
}

async function jobCount(): Promise<number> {
  const [row] = await t.db('jobs').where({ company_id: co.id }).count<{ n: string | number }[]>({ n: '*' });
  return Number(row.n);
}

interface WireTool {
  name: string;
  inputSchema: object;
  outputSchema?: object;
}

async function toolNames(era: 'modern' | 'legacy', key: string, options: Envelope = {}): Promise<string[]> {
  const res = await (era === 'modern' ? modern : legacy)(key, 'tools/list', {}, options);
  return (resultOf(res).tools as WireTool[]).map((tool) => tool.name);
}

describe('server/discover', () => {
  it('names the supported revisions, the capabilities, the instructions and the server, with cache hints', async () => {
    const result = resultOf(await modern(co.readKey, 'server/discover'));
    expect(result).toMatchObject({
      resultType: 'complete',
      capabilities: { tools: expect.any(Object) },
      instructions: expect.stringContaining('get_guide'),
      ttlMs: expect.any(Number),
      cacheScope: expect.stringMatching(/^(public|private)$/),
      _meta: {
        'io.modelcontextprotocol/serverInfo': { name: 'job-management-service', version: expect.any(String) },
      },
    });
    // Only the revisions a request with `_meta` may name: the 2025 ones are reached through
    // initialize (the SDK's choice, which the versioning page's dual-era rules allow).
    expect(result.supportedVersions).toEqual([MODERN_REVISION]);
    expect(result.ttlMs as number).toBeGreaterThan(0);
  });
});

describe('tools/list', () => {
  it('is complete, cacheable and private to the caller (the list depends on the key)', async () => {
    const result = resultOf(await modern(co.writeKey, 'tools/list'));
    expect(result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(result.ttlMs as number).toBeGreaterThan(0);
    expect((result._meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'job-management-service',
    });
  });

  it("every tool's input and output schema compiles in JSON Schema 2020-12", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const tools = resultOf(await modern(co.writeKey, 'tools/list')).tools as WireTool[];
    expect(tools.length).toBeGreaterThan(10);
    const broken: string[] = [];
    for (const tool of tools) {
      for (const [which, schema] of [
        ['input', tool.inputSchema],
        ['output', tool.outputSchema],
      ] as const) {
        if (!schema) continue;
        try {
          ajv.compile(schema);
        } catch (error) {
          broken.push(`${tool.name} ${which}: ${(error as Error).message}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('a call', () => {
  it('answers get_context as a complete result with the server named in _meta', async () => {
    const result = resultOf(await modern(co.readKey, 'tools/call', { name: 'get_context', arguments: {} }));
    expect(result).toMatchObject({
      resultType: 'complete',
      structuredContent: { company: { id: co.id } },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'job-management-service' } },
    });
    expect(result.isError).toBeFalsy();
  });
});

describe('the standard headers', () => {
  const call = { name: 'get_context', arguments: {} };

  /** 400 with the HeaderMismatch error (-32020). */
  function expectMismatch(res: Response): void {
    expect(res.status).toBe(400);
    expect(answerOf(res).error).toMatchObject({ code: -32020, message: expect.any(String) });
  }

  it('a missing Mcp-Method, Mcp-Name or MCP-Protocol-Version is a 400 with -32020', async () => {
    expectMismatch(await modern(co.readKey, 'tools/call', call, { headers: { 'Mcp-Method': null } }));
    expectMismatch(await modern(co.readKey, 'tools/call', call, { headers: { 'Mcp-Name': null } }));
    expectMismatch(
      await modern(co.readKey, 'tools/call', call, { headers: { 'MCP-Protocol-Version': null } }),
    );
  });

  it('one that disagrees with the body is a 400 with -32020', async () => {
    expectMismatch(await modern(co.readKey, 'tools/call', call, { headers: { 'Mcp-Method': 'tools/list' } }));
    expectMismatch(await modern(co.readKey, 'tools/call', call, { headers: { 'Mcp-Name': 'get_job' } }));
    expectMismatch(
      await modern(co.readKey, 'tools/call', call, { headers: { 'MCP-Protocol-Version': '2025-11-25' } }),
    );
    expectMismatch(
      await modern(co.readKey, 'tools/list', {}, { headers: { 'Mcp-Method': 'server/discover' } }),
    );
  });
});

describe('revisions', () => {
  it('an unsupported revision in _meta answers -32022 naming the supported ones', async () => {
    const res = await modern(co.readKey, 'tools/list', {}, { revision: '2099-01-01' });
    expect(res.status).toBe(400);
    const { error } = answerOf(res);
    expect(error).toMatchObject({ code: -32022 });
    const data = error?.data as { supported: string[]; requested?: string };
    expect(data.supported).toEqual([MODERN_REVISION]);
    expect(data.requested).toBe('2099-01-01');
  });

  it('initialize asking for 2026-07-28 gets 2025-11-25: the handshake belongs to the 2025 revisions', async () => {
    const res = await t.http
      .post('/mcp')
      .set('Authorization', `Bearer ${co.readKey}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: MODERN_REVISION, capabilities: {}, clientInfo: CLIENT_INFO },
      });
    expect(resultOf(res)).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'job-management-service' },
    });
  });

  it('GET /mcp is still a 405 for a modern client', async () => {
    const res = await t.http
      .get('/mcp')
      .set('Authorization', `Bearer ${co.readKey}`)
      .set('Accept', 'text/event-stream')
      .set('MCP-Protocol-Version', MODERN_REVISION);
    expect(res.status).toBe(405);
  });
});

describe('the same tools in both eras', () => {
  it('for a write key and a read key', async () => {
    for (const key of [co.writeKey, co.readKey]) {
      const names = await toolNames('modern', key);
      expect(names.length).toBeGreaterThan(0);
      expect(names).toEqual(await toolNames('legacy', key));
    }
    expect(await toolNames('modern', co.readKey)).not.toContain('create_job');
  });

  it('for toolsets and read-only, by header or on the URL', async () => {
    const choices: Envelope[] = [
      { headers: { 'X-MCP-Toolsets': 'notes' } },
      { query: '?toolsets=jobs,estimates' },
      { headers: { 'X-MCP-Readonly': 'true' } },
      { query: '?readonly=true&toolsets=notes' },
    ];
    const all = await toolNames('modern', co.writeKey);
    for (const choice of choices) {
      const names = await toolNames('modern', co.writeKey, choice);
      expect(names).toEqual(await toolNames('legacy', co.writeKey, choice));
      expect(names.length).toBeLessThan(all.length);
    }
  });

  it("for an assistant's OAuth token, narrowed to what its person approved", async () => {
    const tokens = await tokensFor(t, co.writeKey, { toolsets: ['notes'] });
    const names = await toolNames('modern', tokens.access_token);
    expect(names).toEqual(await toolNames('legacy', tokens.access_token));
    expect(names).toEqual(expect.arrayContaining(['add_note', 'get_guide']));
    expect(names).not.toContain('create_job');
  });
});

describe('a read key cannot write, in either era', () => {
  it.each(['modern', 'legacy'] as const)('%s', async (era) => {
    const before = await jobCount();
    const res = await (era === 'modern' ? modern : legacy)(co.readKey, 'tools/call', {
      name: 'create_job',
      arguments: { operation_id: opId(), customer_name: 'Not Saved' },
    });
    const result = resultOf(res);
    expect(result.isError).toBe(true);
    const [content] = result.content as { type: string; text: string }[];
    expect(JSON.parse(content.text)).toMatchObject({ status: 403, code: 'write_key_required' });
    expect(await jobCount()).toBe(before);
  });
});
