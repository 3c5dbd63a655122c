/**
 * What an MCP client is shown, measured as an assistant pays for it: the tool list and the guide
 * in o200k_base tokens (a real tokenizer) within the budget every later tool must fit; schemas
 * every client reads (no `type` arrays); a fixed order; toolsets and read-only on request; job
 * numbers as JSON numbers; progress notifications for a client that asks. All of it in both
 * protocol eras.
 */
import type { CallToolResult, Client, Progress, Tool } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import spec from '../../src/generated/openapi.json';
import { operations } from '../../src/generated/operations';
import { createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { MCP_ERAS, connectMcp, wireRequest, type McpEra } from '../support/mcp';

/** The issues' budget: no tool over 400 tokens, and 20,000 in all for a write key. */
const TOKENS_A_TOOL = 400;
const WRITE_TOKENS_IN_ALL = 20_000;
const READ_TOKENS_IN_ALL = 8_000;
const GUIDE_TOKENS = 1_500;

let t: TestApp;
let co: TestCompany;
const clients: Client[] = [];

let era: McpEra;

async function connect(
  key: string,
  options: { headers?: Record<string, string>; query?: string } = {},
): Promise<Client> {
  const client = await connectMcp(t, key, { ...options, era });
  clients.push(client);
  return client;
}

async function listed(client: Client): Promise<Tool[]> {
  return (await client.listTools()).tools;
}

function textOf(result: CallToolResult): string {
  const [content] = result.content;
  if (content?.type !== 'text') throw new Error('expected a text block');
  return content.text;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 3 });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

/** Every "(" closed by a ")" after it, and no ")" before its "(". */
function balanced(text: string): boolean {
  let open = 0;
  for (const char of text) {
    if (char === '(') open++;
    else if (char === ')' && --open < 0) return false;
  }
  return open === 0;
}

describe.each(MCP_ERAS)('%s era', (eraOfThese) => {
  beforeAll(() => {
    era = eraOfThese;
  });

  describe('what a tool list costs', () => {
    it('fits the token budget for a write key, a read key and the guide', async () => {
      const writeTools = await listed(await connect(co.writeKey));
      const readTools = await listed(await connect(co.readKey));
      const writeTokens = countTokens(JSON.stringify({ tools: writeTools }));
      const readTokens = countTokens(JSON.stringify({ tools: readTools }));
      const guide = await (await connect(co.writeKey)).callTool({ name: 'get_guide', arguments: {} });
      const guideTokens = countTokens(textOf(guide as CallToolResult));
      const perTool = writeTools
        .map((tool) => ({ name: tool.name, tokens: countTokens(JSON.stringify(tool)) }))
        .sort((a, b) => b.tokens - a.tokens);
      console.log(
        `tools/list: write key ${writeTools.length} tools ${writeTokens} tokens (${Math.round(writeTokens / writeTools.length)} a tool; largest ${perTool
          .slice(0, 3)
          .map((tool) => `${tool.name} ${tool.tokens}`)
          .join(
            ', ',
          )}); read key ${readTools.length} tools ${readTokens} tokens; get_guide ${guideTokens} tokens`,
      );
      expect(perTool.filter((tool) => tool.tokens > TOKENS_A_TOOL)).toEqual([]);
      expect(writeTokens).toBeLessThanOrEqual(WRITE_TOKENS_IN_ALL);
      expect(readTokens).toBeLessThanOrEqual(READ_TOKENS_IN_ALL);
      expect(guideTokens).toBeLessThanOrEqual(GUIDE_TOKENS);
    });

    it("has no type arrays in any schema (the inspector's portability rule), and descriptions without line breaks and not cut short", async () => {
      const tools = await listed(await connect(co.writeKey));
      const found: string[] = [];
      const walk = (node: unknown, where: string): void => {
        if (Array.isArray(node)) {
          for (const [index, item] of node.entries()) walk(item, `${where}/${index}`);
        } else if (node && typeof node === 'object') {
          for (const [key, value] of Object.entries(node)) {
            if (key === 'type' && Array.isArray(value)) found.push(where);
            if (key === 'description' && typeof value === 'string' && value.includes('\n'))
              found.push(`${where} (line break)`);
            // A YAML plain scalar ends at " #": "(id, 16 or #16)" once reached assistants as "(id, 16 or".
            if (key === 'description' && typeof value === 'string' && !balanced(value))
              found.push(`${where} (unbalanced parentheses: ${value})`);
            walk(value, `${where}/${key}`);
          }
        }
      };
      for (const tool of tools) {
        walk(tool.inputSchema, `${tool.name}/inputSchema`);
        walk(tool.outputSchema, `${tool.name}/outputSchema`);
        expect(tool.description).not.toContain('\n');
      }
      expect(found).toEqual([]);
    });

    it("lists tools in the documented order: by toolset in the order of the spec's tags, then by name", async () => {
      const tags = spec.tags.map((tag) => tag.name);
      const expected = Object.values(operations)
        .filter((op) => op.mcp)
        .sort((a, b) => tags.indexOf(a.tag) - tags.indexOf(b.tag) || a.name.localeCompare(b.name))
        .map((op) => op.name);
      expect((await listed(await connect(co.writeKey))).map((tool) => tool.name)).toEqual(expected);
      expect((await listed(await connect(co.readKey))).map((tool) => tool.name)).toEqual(
        expected.filter((name) => operations[name as keyof typeof operations].scope === 'read'),
      );
    });
  });

  describe('toolsets and read-only', () => {
    const inToolsets = (names: string[]) =>
      Object.values(operations)
        .filter((op) => op.mcp && ['Context', ...names].includes(op.tag))
        .map((op) => op.name)
        .sort();

    it('shows only the toolsets asked for by header or by query, with the context tools always', async () => {
      const byHeader = await listed(
        await connect(co.writeKey, { headers: { 'X-MCP-Toolsets': 'jobs, Estimates' } }),
      );
      expect(byHeader.map((tool) => tool.name).sort()).toEqual(inToolsets(['Jobs', 'Estimates']));
      const byQuery = await listed(await connect(co.writeKey, { query: '?toolsets=notes' }));
      expect(byQuery.map((tool) => tool.name).sort()).toEqual(inToolsets(['Notes']));
      const all = await listed(await connect(co.writeKey, { query: '?toolsets=all' }));
      expect(all).toHaveLength(Object.values(operations).filter((op) => op.mcp).length);
    });

    it('shows only read tools when asked for read-only, and refuses a call of a tool it did not show', async () => {
      // This company's notes: on PostgreSQL other test files write notes at the same time.
      const notes = async () =>
        Number((await t.db('notes').where({ company_id: co.id }).count<{ n: string }[]>({ n: '*' }))[0].n);
      const notesBefore = await notes();
      for (const options of [
        { headers: { 'X-MCP-Readonly': 'true' } },
        { query: '?readonly=true&toolsets=jobs,notes' },
      ]) {
        const client = await connect(co.writeKey, options);
        const tools = await listed(client);
        expect(tools.length).toBeGreaterThan(0);
        expect(tools.every((tool) => operations[tool.name as keyof typeof operations].scope === 'read')).toBe(
          true,
        );
        const refused = (await client.callTool({
          name: 'add_note',
          arguments: { job_id: '1', operation_id: opId(), text: 'x' },
        })) as CallToolResult;
        expect(refused.isError).toBe(true);
        expect(JSON.parse(textOf(refused))).toMatchObject({
          code: 'not_found',
          detail: expect.stringContaining('read-only tools'),
        });
      }
      expect(await notes()).toBe(notesBefore);

      const jobsOnly = await connect(co.writeKey, { headers: { 'X-MCP-Toolsets': 'jobs' } });
      const outside = (await jobsOnly.callTool({
        name: 'search_price_list',
        arguments: { q: 'dehumidifier' },
      })) as CallToolResult;
      expect(JSON.parse(textOf(outside))).toMatchObject({
        code: 'not_found',
        detail: expect.stringContaining('the toolsets jobs'),
      });
      // The context toolset is always there.
      expect(
        ((await jobsOnly.callTool({ name: 'get_guide', arguments: {} })) as CallToolResult).isError,
      ).toBeFalsy();
    });

    it('answers an unknown toolset or a readonly that is not true or false with a 400 naming the valid values', async () => {
      const post = (headers: Record<string, string>, query = '') => {
        const wire = wireRequest(era, 1, 'tools/list');
        return fetch(`${t.url}/mcp${query}`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${co.writeKey}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            ...wire.headers,
            ...headers,
          },
          body: JSON.stringify(wire.body),
        });
      };
      const unknown = await post({ 'X-MCP-Toolsets': 'jobs,billing' });
      expect(unknown.status).toBe(400);
      const problem = (await unknown.json()) as {
        code: string;
        detail: string;
        valid_values: string[];
        errors: { path: string }[];
      };
      expect(problem).toMatchObject({
        code: 'invalid_request',
        errors: [{ path: '/headers/x-mcp-toolsets' }],
      });
      expect(problem.detail).toContain('"billing"');
      expect(problem.valid_values).toEqual(expect.arrayContaining(['context', 'jobs', 'estimates', 'all']));
      const badQuery = await post({}, '?readonly=yes');
      expect(badQuery.status).toBe(400);
      expect(await badQuery.json()).toMatchObject({
        code: 'invalid_request',
        errors: [{ path: '/query/readonly' }],
      });
    });

    it('shows a read key read tools only, whatever it asks for', async () => {
      const tools = await listed(
        await connect(co.readKey, { headers: { 'X-MCP-Toolsets': 'notes', 'X-MCP-Readonly': 'false' } }),
      );
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        inToolsets(['Notes']).filter((name) => operations[name as keyof typeof operations].scope === 'read'),
      );
    });
  });

  describe('job numbers as JSON numbers', () => {
    it('opens a job given as {"job_id": 16} in every tool that takes a job, and refuses numbers that are no job number', async () => {
      const client = await connect(co.writeKey);
      const job = (await client.callTool({
        name: 'create_job',
        arguments: { operation_id: opId(), customer_name: 'Numbered' },
      })) as CallToolResult;
      const { id, job_number: number } = job.structuredContent as { id: string; job_number: number };
      const opened = (await client.callTool({
        name: 'get_job',
        arguments: { job_id: number },
      })) as CallToolResult;
      expect((opened.structuredContent as { id: string }).id).toBe(id);
      const note = (await client.callTool({
        name: 'add_note',
        arguments: { job_id: number, operation_id: opId(), text: 'by number' },
      })) as CallToolResult;
      expect((note.structuredContent as { job_id: string }).job_id).toBe(id);

      // Every tool with a job argument takes a number: an unknown job number is not found, never a type error.
      const takingJobs = Object.values(operations).filter((op) => op.mcp && op.pathParams.includes('job_id'));
      expect(takingJobs.length).toBeGreaterThan(10);
      for (const op of takingJobs) {
        const result = (await client.callTool({
          name: op.name,
          arguments: { job_id: 999_999 },
        })) as CallToolResult;
        const problem = JSON.parse(textOf(result)) as { code: string; errors?: { path: string }[] };
        expect({
          tool: op.name,
          pathsWrong: (problem.errors ?? []).map((e) => e.path).filter((path) => path === '/job_id'),
        }).toEqual({ tool: op.name, pathsWrong: [] });
      }
      for (const wrong of [1.5, -3, 1e12]) {
        const result = (await client.callTool({
          name: 'get_job',
          arguments: { job_id: wrong },
        })) as CallToolResult;
        expect(JSON.parse(textOf(result))).toMatchObject({
          code: 'invalid_request',
          errors: [{ path: '/job_id' }],
        });
      }
    });
  });

  describe('progress', () => {
    it('sends growing progress notifications to a client that asks for them, and plain JSON to one that does not', async () => {
      const client = await connect(co.writeKey);
      const job = (await client.callTool({
        name: 'create_job',
        arguments: { operation_id: opId(), customer_name: 'Progress' },
      })) as CallToolResult;
      const jobId = (job.structuredContent as { id: string }).id;
      const estimate = (await client.callTool({
        name: 'create_estimate',
        arguments: { job_id: jobId, operation_id: opId() },
      })) as CallToolResult;
      const estimateId = (estimate.structuredContent as { estimate: { id: string } }).estimate.id;
      const lines = Array.from({ length: 60 }, (_, index) => ({
        description: `Own line ${index + 1}`,
        unit: 'EA',
        quantity: 1,
        unit_price_cents: 100,
      }));

      const seen: Progress[] = [];
      const result = (await client.callTool(
        {
          name: 'add_line_items',
          arguments: { estimate_id: estimateId, operation_id: opId(), line_items: lines },
        },
        {
          onprogress: (progress) => seen.push(progress),
        },
      )) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { added: unknown[] }).added).toHaveLength(60);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.at(-1)).toMatchObject({ progress: 60, total: 60, message: '60 of 60 lines' });
      for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);

      const raw = (meta: object) => {
        const wire = wireRequest(era, 7, 'tools/call', { name: 'get_context', arguments: {}, ...meta });
        return fetch(`${t.url}/mcp`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${co.writeKey}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            ...wire.headers,
          },
          body: JSON.stringify(wire.body),
        });
      };
      const plain = await raw({});
      expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
      // Asked for progress by a call that has none to send: the 2025 transport opens a stream
      // before the call runs; the 2026-07-28 entry streams only once there is a notification.
      const streamed = await raw({ _meta: { progressToken: 'p1' } });
      expect(streamed.headers.get('content-type')).toMatch(
        era === 'legacy' ? /^text\/event-stream/ : /^application\/json/,
      );
      expect(await streamed.text()).toContain('"id":7');
    });
  });
});
