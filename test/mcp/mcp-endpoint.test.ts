/**
 * The /mcp endpoint through the official MCP client: the tool list comes from the operation
 * table, calls run through the same pipeline as HTTP (scope check, validation, idempotency,
 * change feed), and problems come back as `isError` results.
 *
 * Every client lists the tools before calling any: the SDK client validates structuredContent
 * against a tool's outputSchema only for tools it has listed. The answers are also checked
 * against the table's outputSchema here with Ajv, so a wrong shape fails even if the SDK skips it.
 *
 * Everything a client sees runs in both protocol eras (2026-07-28 and 2025-11-25), each with
 * companies of its own; the raw 2025 handshake is tested at the end, the 2026-07-28 wire in
 * revision-2026.test.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  LATEST_PROTOCOL_VERSION,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type Client,
  type Tool,
} from '@modelcontextprotocol/client';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { operations, type OperationSpec } from '../../src/generated/operations';
import { operationSchemas, type OperationSchemas } from '../support/operation-schemas';
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
import { expectChangeData, type CallTool } from '../support/change-data';
import type { components } from '../../sdk/src/schema';
import { MCP_ERAS, connectMcp, type McpEra } from '../support/mcp';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: { path: string; message: string }[];
  valid_values?: string[];
}

type FeedEntry = components['schemas']['ChangeEntry'];

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
/** What a client must take a hint to be when the tool leaves it out (the MCP specification's defaults). */
const HINT_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

const mcpOps: OperationSpec[] = Object.values(operations).filter(
  (op) => op.mcp && (op.scope === 'read' || op.scope === 'write'),
);
const readOps = mcpOps.filter((op) => op.scope === 'read');
const opByName = new Map<string, OperationSpec>(Object.values(operations).map((op) => [op.name, op]));
let schemas: Map<string, OperationSchemas>;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);

let t: TestApp;
let co: TestCompany;
let rival: TestCompany;
const clients: Client[] = [];

/** The era of the describe.each block running; the last block (raw 2025 requests) leaves it to MCP_ERA. */
let era: McpEra | undefined;

/** A client of the era under test; connectMcp lists the tools, which turns on the SDK's output validation. */
async function connect(key: string): Promise<Client> {
  const client = await connectMcp(t, key, { era });
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  expect(result.content).toHaveLength(1);
  const [content] = result.content;
  if (content.type !== 'text') throw new Error(`expected one text block, got ${content.type}`);
  return content.text;
}

/** A success: text and structuredContent hold the same JSON, which matches the tool's outputSchema. */
async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  expect(result.structuredContent).toBeDefined();
  expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  const schema = schemas.get(name)?.outputSchema;
  if (schema) {
    const validate = ajv.compile(schema);
    if (!validate(result.structuredContent))
      throw new Error(`${name} answer does not match its outputSchema: ${ajv.errorsText(validate.errors)}`);
  }
  return result.structuredContent as T;
}

/** A refusal: isError, one text block holding the problem object, no structuredContent. */
async function problem(client: Client, name: string, args: Record<string, unknown>): Promise<Problem> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const body = JSON.parse(textOf(result)) as Problem;
  expect(body).toMatchObject({
    type: `https://jms.dev/problems/${body.code}`,
    title: expect.any(String),
    detail: expect.any(String),
    request_id: expect.any(String),
  });
  expect(body.title.length).toBeGreaterThan(0);
  return body;
}

async function jobCount(companyId: string): Promise<number> {
  const [row] = await t
    .db('jobs')
    .where({ company_id: companyId })
    .count<{ n: string | number }[]>({ n: '*' });
  return Number(row.n);
}

async function feed(client: Client, args: Record<string, unknown> = {}): Promise<FeedEntry[]> {
  await feedSettled(t);
  const entries: FeedEntry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await ok<{ data: FeedEntry[]; next_cursor: string }>(client, 'list_changes', {
      ...args,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    entries.push(...page.data);
    if (page.data.length === 0) return entries;
    cursor = page.next_cursor;
  }
}

/** A new key through the admin API (isolated undo history). */
async function newKey(
  company: TestCompany,
  personIndex: number,
  scope: 'read' | 'write',
): Promise<{ id: string; key: string }> {
  const res = await t.http
    .post(`/admin/v1/companies/${company.id}/keys`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ person_id: company.people[personIndex].id, scope })
    .expect(201);
  return { id: res.body.id as string, key: res.body.key as string };
}

beforeAll(async () => {
  schemas = operationSchemas();
  t = await startApp();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
});

describe.each(MCP_ERAS)('%s era', (eraOfThese) => {
  beforeAll(async () => {
    era = eraOfThese;
    co = await createCompany(t);
    rival = await createCompany(t);
  });
  afterAll(() => {
    era = undefined;
  });

  describe('connecting', () => {
    it('connects through the official client and names get_guide in the instructions', async () => {
      const client = await connect(co.readKey);
      expect(client.getServerVersion()).toEqual({ name: 'job-management-service', version: '1.0.0' });
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      const instructions = client.getInstructions();
      expect(instructions).toEqual(expect.any(String));
      expect(instructions).toContain('get_guide');
      if (era === 'legacy') await client.ping(); // 2026-07-28 has no ping
    });
  });

  describe('tools/list', () => {
    function checkTool(tool: Tool): void {
      const op = opByName.get(tool.name);
      if (!op) throw new Error(`tool ${tool.name} is not in the operation table`);
      const { inputSchema, outputSchema } = schemas.get(tool.name)!;
      expect(op.mcp).toBe(true);
      expect(op.scope).not.toBe('admin');

      // One line saying when to use it and what it returns, not the HTTP document's paragraphs.
      expect(typeof tool.description).toBe('string');
      expect(tool.description!.length).toBeGreaterThan(40);
      expect(tool.description).not.toMatch(/\n/);
      expect(tool.title).toEqual(expect.any(String));

      // One object schema holding every path, query and body parameter, as the table has them, but
      // those marked x-mcp-omit (a second way to say the same, still taken).
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.additionalProperties).toBe(false);
      const specInput = inputSchema.properties as Record<string, Record<string, unknown>>;
      const shown = [...op.pathParams, ...op.queryParams, ...op.bodyParams].filter(
        (field) => specInput[field]['x-mcp-omit'] !== true,
      );
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(shown.sort());
      expect(tool.inputSchema.required).toEqual(inputSchema.required);
      for (const param of op.pathParams) expect(tool.inputSchema.required).toContain(param);
      // A field shown as another tool's names a tool that takes it.
      for (const [field, schema] of Object.entries(specInput)) {
        const other = schema['x-mcp-as-in'];
        if (typeof other !== 'string') continue;
        expect(tool.inputSchema.properties![field]).toEqual({
          type: schema.type,
          description: `As in \`${other}\`.`,
        });
        expect(schemas.get(other)!.inputSchema.properties).toHaveProperty(field);
      }

      // The answer's top-level fields (required when always there), or the read tool that spells
      // the answer out, with the fields this one adds (an allOf).
      expect(outputSchema).not.toBeNull();
      const listed = tool.outputSchema as {
        type: string;
        description?: string;
        required?: string[];
        properties?: object;
      };
      expect(listed.type).toBe('object');
      type Part = { properties?: object; required?: string[]; allOf?: Part[] };
      const parts = [outputSchema as Part, ...((outputSchema as Part).allOf ?? [])];
      const home = /^What `(\w+)` answers/.exec(listed.description ?? '')?.[1];
      const own = home
        ? parts.filter((part) => JSON.stringify(part) !== JSON.stringify(schemas.get(home)!.outputSchema))
        : parts;
      if (home) {
        expect(opByName.get(home)?.scope).toBe('read');
        expect(own.length).toBeLessThan(parts.length);
      }
      const names = own.flatMap((part) => Object.keys(part.properties ?? {}));
      const always = new Set(own.flatMap((part) => part.required ?? []));
      expect(listed.required ?? []).toEqual(names.filter((field) => always.has(field)));
      expect(Object.keys(listed.properties ?? {})).toEqual(names.filter((field) => !always.has(field)));

      // Each hint as the table has it, left out only where the MCP default says the same.
      expect(tool.annotations).toBeDefined();
      for (const hint of HINTS) {
        const sent = tool.annotations![hint];
        if (sent === undefined) expect(HINT_DEFAULTS[hint]).toBe(false);
        expect(sent ?? HINT_DEFAULTS[hint]).toBe(op.annotations![hint]);
      }
      expect(tool.annotations!.readOnlyHint ?? false).toBe(op.scope === 'read');
    }

    it('offers a write key exactly the read and write tools of the operation table', async () => {
      const client = await connect(co.writeKey);
      const { tools, nextCursor } = await client.listTools();
      expect(nextCursor).toBeUndefined();
      const names = tools.map((tool) => tool.name);
      expect(new Set(names).size).toBe(names.length);
      expect([...names].sort()).toEqual(mcpOps.map((op) => op.name).sort());
      expect(names.filter((name) => name.startsWith('admin_'))).toEqual([]);
      expect(names).toEqual(
        expect.arrayContaining([
          'get_context',
          'get_guide',
          'create_job',
          'get_job',
          'find_jobs',
          'list_changes',
          'undo_my_last_action',
        ]),
      );
      for (const tool of tools) checkTool(tool);

      const getJob = tools.find((tool) => tool.name === 'get_job')!;
      expect(getJob.inputSchema.required).toEqual(['job_id']);
      expect(Object.keys(getJob.inputSchema.properties!)).toEqual(['job_id']);
      const createJob = tools.find((tool) => tool.name === 'create_job')!;
      expect(createJob.inputSchema.required).toEqual(['operation_id']);
      expect(Object.keys(createJob.inputSchema.properties!)).toEqual(
        expect.arrayContaining(['operation_id', 'customer_name', 'assignee', 'referral_source']),
      );
      expect(createJob.annotations).toEqual({
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      const findJobs = tools.find((tool) => tool.name === 'find_jobs')!;
      expect(Object.keys(findJobs.inputSchema.properties!)).toEqual(
        expect.arrayContaining(['q', 'limit', 'cursor']),
      );
      expect(findJobs.inputSchema.required ?? []).toEqual([]);
      const undo = tools.find((tool) => tool.name === 'undo_my_last_action')!;
      expect(undo.annotations).toEqual({ destructiveHint: true, openWorldHint: false });
    });

    it('offers a read key only the read tools', async () => {
      const client = await connect(co.readKey);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(readOps.map((op) => op.name).sort());
      expect(tools.map((tool) => tool.name)).not.toContain('create_job');
      for (const tool of tools) checkTool(tool);
      expect(tools.every((tool) => tool.annotations!.readOnlyHint === true)).toBe(true);
    });
  });

  describe('tools/call', () => {
    it('get_context tells who the key works for', async () => {
      const writer = await connect(co.writeKey);
      const context = await ok(writer, 'get_context', {});
      expect(context).toMatchObject({
        person: { id: co.people[0].id, name: 'Avery Stone', role: 'Owner' },
        company: { id: co.id, name: co.name },
        key: {
          scope: 'write',
          prefix: co.writeKey.slice(0, (context.key as { prefix: string }).prefix.length),
        },
        chat: { connected: false, new_note: false },
        credits: { remaining: 5 },
      });
      const overHttp = await as(t, co.writeKey).get('/api/v1/context').expect(200);
      // The same answer, the company's clock aside (a second may pass between the two calls).
      const company = context.company as Record<string, unknown>;
      expect(overHttp.body).toEqual({
        ...context,
        company: { ...company, local_time: overHttp.body.company.local_time },
      });

      const reader = await connect(co.readKey);
      expect(await ok(reader, 'get_context', {})).toMatchObject({
        person: { name: 'Avery Stone' },
        key: { scope: 'read' },
      });
      const other = await connect(co.otherWriteKey);
      expect(await ok(other, 'get_context', {})).toMatchObject({
        person: { id: co.people[1].id, name: 'Dana Brooks' },
        key: { scope: 'write' },
      });
    });

    it('get_guide returns the live guide for the key: as data, and once as Markdown text', async () => {
      type Guide = {
        toolsets: { name: string; tools: string[] }[];
        naming: string[];
        recipes: { title: string; steps: string }[];
      };
      const guideOf = async (key: string) => {
        const result = await call(await connect(key), 'get_guide', {});
        expect(result.isError).toBeFalsy();
        return { guide: result.structuredContent as Guide, text: textOf(result) };
      };
      const { guide, text } = await guideOf(co.writeKey);
      const guideNames = guide.toolsets.flatMap((set) => set.tools);
      expect([...guideNames].sort()).toEqual(mcpOps.map((op) => op.name).sort());
      expect(guide.naming.length).toBeGreaterThan(0);
      expect(Object.keys(guide).sort()).toEqual(['naming', 'recipes', 'toolsets']);
      // The text is the guide written once: each rule and recipe appears one time, and no JSON.
      expect(text).toMatch(/^# Job Management Service guide/);
      expect(text).toContain('This key can read and write.');
      for (const line of guide.naming) expect(text.split(line)).toHaveLength(2);
      for (const recipe of guide.recipes) expect(text.split(recipe.steps)).toHaveLength(2);
      expect(text).not.toContain('"naming"');
      expect(text).toContain('jobs: cancel_job, create_job, find_jobs');
      // Names only: the tools' descriptions live in the tool list and the spec.
      expect(text).not.toContain(operations.find_jobs.summary);

      const read = await guideOf(co.readKey);
      expect(read.guide.toolsets.flatMap((set) => set.tools).sort()).toEqual(
        readOps.map((op) => op.name).sort(),
      );
      expect(read.text).toContain('This key is read-only');
    });

    it('update_estimate names the estimate an assistant found on the job, without a credit', async () => {
      const writer = await connect(co.writeKey);
      const job = await ok<{ id: string }>(writer, 'create_job', {
        operation_id: opId(),
        customer_name: 'Erin Estimate',
      });
      const made = await ok<{ estimate: { id: string }; credits: { remaining: number } }>(
        writer,
        'create_estimate',
        { job_id: job.id, operation_id: opId() },
      );
      const named = await ok<{ label: string; scope_summary: string | null }>(writer, 'update_estimate', {
        estimate_id: made.estimate.id,
        operation_id: opId(),
        label: 'Water mitigation',
        scope_summary: 'Kitchen and hall',
      });
      expect(named).toMatchObject({ label: 'Water mitigation', scope_summary: 'Kitchen and hall' });
      expect(
        (await ok<{ credits: { remaining: number } }>(writer, 'get_context', {})).credits.remaining,
      ).toBe(made.credits.remaining);
      const refused = await call(await connect(co.readKey), 'update_estimate', {
        estimate_id: made.estimate.id,
        label: 'No',
      });
      expect(refused.isError).toBe(true);
    });

    it('create_job, then get_job by number and find_jobs, agree with HTTP', async () => {
      const writer = await connect(co.writeKey);
      const reader = await connect(co.readKey);
      const before = await jobCount(co.id);
      const job = await ok(writer, 'create_job', {
        operation_id: opId(),
        customer_name: 'Tomas Nguyen',
        customer_phone: '(217) 555-0199',
        address_line1: '9 Elm Court',
        city: 'Peoria',
        region: 'IL',
        loss_type: 'sewage',
        carrier: 'Allstate',
        claim_number: 'AL-5521',
        assignee: 'dana brooks',
        referral_source: 'plumber',
      });
      expect(job).toMatchObject({
        title: 'Tomas Nguyen - sewage',
        status: 'New',
        customer_name: 'Tomas Nguyen',
        referral_source: 'Plumber',
        claim: { carrier: 'Allstate', claim_number: 'AL-5521' },
        assignees: [{ name: 'Dana Brooks' }],
        created_by: { name: 'Avery Stone' },
      });
      expect(job.id).toMatch(/^job_/);
      expect(job.job_number).toEqual(expect.any(Number));
      expect(await jobCount(co.id)).toBe(before + 1);

      const overHttp = await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200);
      // create_job's answer is get_job's with the possible duplicates added.
      const { possible_duplicates: duplicates, ...created } = job as Record<string, unknown>;
      expect(overHttp.body).toEqual(created);
      expect(duplicates).toEqual([]);

      expect(await ok(reader, 'get_job', { job_id: `#${job.job_number}` })).toEqual(created);
      expect(await ok(reader, 'get_job', { job_id: String(job.job_number) })).toEqual(created);
      expect(await ok(reader, 'get_job', { job_id: job.id })).toEqual(created);

      await ok(writer, 'create_job', {
        operation_id: opId(),
        customer_name: 'Tomas Brandt',
        loss_type: 'fire',
      });
      const byPhone = await ok<{ data: { id: string; title: string }[]; next_cursor: string | null }>(
        reader,
        'find_jobs',
        { q: '217.555.0199', limit: 5 },
      );
      expect(byPhone.data.map((found) => found.id)).toEqual([job.id]);
      const byName = await ok<{ data: { id: string; customer_name: string }[]; next_cursor: string | null }>(
        reader,
        'find_jobs',
        { q: 'tomas', limit: 1 },
      );
      expect(byName.data).toHaveLength(1);
      expect(byName.data[0].customer_name).toBe('Tomas Brandt'); // newest first
      expect(byName.next_cursor).toEqual(expect.any(String));
      const next = await ok<{ data: { id: string }[]; next_cursor: string | null }>(reader, 'find_jobs', {
        q: 'tomas',
        limit: 1,
        cursor: byName.next_cursor,
      });
      expect(next.data.map((found) => found.id)).toEqual([job.id]);
      const httpFind = await as(t, co.readKey)
        .get('/api/v1/jobs')
        .query({ q: 'tomas', limit: 1 })
        .expect(200);
      expect(httpFind.body).toEqual(byName);
    });

    it('find_jobs without limit pages by 25, as over HTTP (MCP arguments get no schema defaults)', async () => {
      const reader = await connect(co.readKey);
      const word = `Paging${randomUUID().slice(0, 6)}`;
      for (let i = 0; i < 26; i++)
        await as(t, co.writeKey)
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), customer_name: `${word} ${i}` })
          .expect(201);
      const page = await ok<{ data: { customer_name: string }[]; next_cursor: string | null }>(
        reader,
        'find_jobs',
        { q: word },
      );
      expect(page.data).toHaveLength(25);
      expect(page.data[0].customer_name).toBe(`${word} 25`);
      expect(page.next_cursor).toEqual(expect.any(String));
      const overHttp = await as(t, co.readKey).get('/api/v1/jobs').query({ q: word }).expect(200);
      expect(overHttp.body).toEqual(page);
      const rest = await ok<{ data: { customer_name: string }[]; next_cursor: string | null }>(
        reader,
        'find_jobs',
        { q: word, cursor: page.next_cursor },
      );
      expect(rest.data.map((job) => job.customer_name)).toEqual([`${word} 0`]);
      expect(rest.next_cursor).toBeNull();
    });

    it('list_changes shows changes made over MCP under the key owner, marked via_key', async () => {
      const avery = await connect(co.writeKey);
      const dana = await connect(co.otherWriteKey);
      const reader = await connect(co.readKey);
      const start = await ok<{ data: FeedEntry[]; next_cursor: string }>(reader, 'list_changes', {
        kind: 'changes',
        limit: 100,
      });
      let cursor = start.next_cursor;
      for (;;) {
        const page = await ok<{ data: FeedEntry[]; next_cursor: string }>(reader, 'list_changes', {
          kind: 'changes',
          limit: 100,
          cursor,
        });
        if (page.data.length === 0) break;
        cursor = page.next_cursor;
      }

      const byAvery = await ok(avery, 'create_job', { operation_id: opId(), customer_name: 'Feed Avery' });
      const byDana = await ok(dana, 'create_job', { operation_id: opId(), customer_name: 'Feed Dana' });
      // On PostgreSQL another test file's open write can hold a fresh entry back for a moment.
      await feedSettled(t);
      const page = await ok<{ data: FeedEntry[]; next_cursor: string }>(reader, 'list_changes', {
        kind: 'changes',
        cursor,
      });
      expect(page.data).toHaveLength(2);
      expect(page.data[0]).toMatchObject({
        kind: 'changes',
        action: 'job.created',
        job: { id: byAvery.id, job_number: byAvery.job_number },
        person: { id: co.people[0].id, name: 'Avery Stone' },
        via_key: true,
      });
      expect(page.data[0].summary).toContain(`#${byAvery.job_number}`);
      expect(page.data[1]).toMatchObject({
        action: 'job.created',
        job: { id: byDana.id },
        person: { id: co.people[1].id, name: 'Dana Brooks' },
        via_key: true,
      });
      expect(page.next_cursor).not.toBe(cursor);
      const empty = await ok<{ data: FeedEntry[]; next_cursor: string }>(reader, 'list_changes', {
        kind: 'changes',
        cursor: page.next_cursor,
      });
      expect(empty.data).toEqual([]);
      expect(empty.next_cursor).toEqual(expect.any(String));

      const onlyNotes = await ok<{ data: FeedEntry[] }>(reader, 'list_changes', { kind: 'notes' });
      expect(onlyNotes.data.every((entry) => entry.kind === 'notes')).toBe(true);
      // The other company's feed does not show them.
      const rivalReader = await connect(rival.readKey);
      expect((await feed(rivalReader)).map((entry) => entry.job?.id)).not.toContain(byAvery.id);
    });

    it('undo_my_last_action takes back the key’s own last change, and the undo is in the feed', async () => {
      const { key } = await newKey(co, 3, 'write');
      const sam = await connect(key);
      const reader = await connect(co.readKey);
      expect((await problem(sam, 'undo_my_last_action', { operation_id: opId() })).code).toBe(
        'undo_not_possible',
      );

      const job = await ok(sam, 'create_job', { operation_id: opId(), customer_name: 'Undo Me' });
      const before = await jobCount(co.id);
      const undone = await ok<{ undone: { tool: string; summary: string; at: string } }>(
        sam,
        'undo_my_last_action',
        { operation_id: opId() },
      );
      expect(undone.undone.tool).toBe('create_job');
      expect(undone.undone.summary).toContain(`#${job.job_number}`);
      expect(await jobCount(co.id)).toBe(before - 1);
      expect((await problem(reader, 'get_job', { job_id: job.id as string })).code).toBe('not_found');
      await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(404);

      const entries = await feed(reader, { kind: 'changes' });
      const last = entries.at(-1)!;
      expect(last).toMatchObject({
        action: 'action.undone',
        person: { id: co.people[3].id, name: 'Sam Okafor' },
        via_key: true,
      });
      expect((await problem(sam, 'undo_my_last_action', { operation_id: opId() })).code).toBe(
        'undo_not_possible',
      );
    });

    it('list_changes and get_job_activity give each action its details as data, checked against the output schemas', async () => {
      const fresh = await createCompany(t);
      const tool =
        (client: Client): CallTool =>
        async <T>(name: string, args: Record<string, unknown>) =>
          ok<T & Record<string, unknown>>(client, name, args);
      await expectChangeData(
        fresh,
        tool(await connect(fresh.writeKey)),
        tool(await connect(fresh.readKey)),
        () => feedSettled(t),
      );
    });
  });

  describe('problems', () => {
    let writer: Client;
    let reader: Client;
    beforeAll(async () => {
      writer = await connect(co.writeKey);
      reader = await connect(co.readKey);
    });

    it('refuses write tools to a read key with write_key_required, saving nothing', async () => {
      const before = await jobCount(co.id);
      const refused = await problem(reader, 'create_job', {
        operation_id: opId(),
        customer_name: 'Read Only',
      });
      expect(refused).toMatchObject({ code: 'write_key_required', status: 403 });
      expect((await problem(reader, 'undo_my_last_action', { operation_id: opId() })).code).toBe(
        'write_key_required',
      );
      expect(await jobCount(co.id)).toBe(before);
    });

    it('answers invalid_request naming each bad argument, saving nothing', async () => {
      const before = await jobCount(co.id);
      const missing = await problem(writer, 'create_job', { customer_name: 'No Operation' });
      expect(missing).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(missing.errors!.map((e) => e.path)).toEqual(['/operation_id']);

      const wrongType = await problem(writer, 'create_job', { operation_id: opId(), customer_name: 42 });
      expect(wrongType.code).toBe('invalid_request');
      expect(wrongType.errors!.map((e) => e.path)).toEqual(['/customer_name']);

      const extra = await problem(writer, 'create_job', { operation_id: opId(), colour: 'red' });
      expect(extra.code).toBe('invalid_request');
      expect(extra.errors!.map((e) => e.path)).toEqual(['/colour']);

      const both = await problem(writer, 'create_job', { customer_name: 7, colour: 'red' });
      expect(both.errors!.map((e) => e.path).sort()).toEqual(['/colour', '/customer_name', '/operation_id']);
      for (const error of both.errors!) expect(error.message).toEqual(expect.any(String));

      const zero = await problem(reader, 'find_jobs', { limit: 0 });
      expect(zero.code).toBe('invalid_request');
      expect(zero.errors!.map((e) => e.path)).toEqual(['/limit']);
      expect((await problem(reader, 'find_jobs', { limit: 101 })).errors!.map((e) => e.path)).toEqual([
        '/limit',
      ]);
      expect((await problem(reader, 'get_job', { job_id: 'est_abc' })).errors!.map((e) => e.path)).toEqual([
        '/job_id',
      ]);
      expect((await problem(reader, 'get_job', {})).errors!.map((e) => e.path)).toEqual(['/job_id']);
      expect(await jobCount(co.id)).toBe(before);
    });

    it('answers not_found for an unknown job and for another company’s job', async () => {
      expect(await problem(reader, 'get_job', { job_id: '#987654' })).toMatchObject({
        code: 'not_found',
        status: 404,
      });
      expect((await problem(reader, 'get_job', { job_id: 'job_doesNotExist1' })).code).toBe('not_found');

      const theirs = await as(t, rival.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Rival Customer' })
        .expect(201);
      await as(t, rival.readKey).get(`/api/v1/jobs/${theirs.body.id}`).expect(200);
      expect((await problem(reader, 'get_job', { job_id: theirs.body.id as string })).code).toBe('not_found');
      expect((await problem(writer, 'get_job', { job_id: theirs.body.id as string })).code).toBe('not_found');
      const search = await ok<{ data: unknown[] }>(reader, 'find_jobs', { q: 'Rival Customer' });
      expect(search.data).toEqual([]);
    });

    it('answers an unknown tool name with the JSON-RPC error -32602 (invalid params), as the MCP specification has it', async () => {
      await expect(call(writer, 'no_such_tool', {})).rejects.toMatchObject({
        code: ProtocolErrorCode.InvalidParams,
        message: expect.stringContaining('no_such_tool'),
      });
      // Admin operations are not tools, whatever the key.
      await expect(
        call(writer, 'admin_create_company', { name: 'Sneaky', credits: 1 }),
      ).rejects.toMatchObject({
        code: ProtocolErrorCode.InvalidParams,
      });
    });

    it('answers unknown_teammate with the valid names, saving nothing', async () => {
      const before = await jobCount(co.id);
      const unknown = await problem(writer, 'create_job', {
        operation_id: opId(),
        customer_name: 'Who',
        assignee: 'Nobody Known',
      });
      expect(unknown).toMatchObject({ code: 'unknown_teammate', status: 422 });
      expect(unknown.valid_values).toEqual(
        expect.arrayContaining(['Avery Stone', 'Dana Brooks', 'Sam Okafor']),
      );
      expect(await jobCount(co.id)).toBe(before);
    });
  });

  describe('idempotency shared with HTTP', () => {
    it('replays the same create_job over MCP and over HTTP, and refuses other details', async () => {
      const writer = await connect(co.writeKey);
      const claim = `CL-${randomUUID().slice(0, 8)}`;
      const args = {
        operation_id: opId(),
        customer_name: 'Ben Carter',
        loss_type: 'water',
        claim_number: claim,
      };
      const before = await jobCount(co.id);

      const first = await ok(writer, 'create_job', args);
      const again = await ok(writer, 'create_job', { ...args });
      expect(again).toEqual(first);
      // Key order does not matter.
      const reordered = Object.fromEntries(Object.entries(args).reverse());
      expect(await ok(writer, 'create_job', reordered)).toEqual(first);
      expect(await jobCount(co.id)).toBe(before + 1);

      const http = await as(t, co.writeKey).post('/api/v1/jobs').send(args).expect(201);
      expect(http.headers['idempotent-replayed']).toBe('true');
      expect(http.body).toEqual(first);
      expect(await jobCount(co.id)).toBe(before + 1);

      const conflict = await problem(writer, 'create_job', { ...args, claim_number: `${claim}-X` });
      expect(conflict).toMatchObject({ code: 'operation_id_conflict', status: 409 });
      const httpConflict = await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ ...args, customer_name: 'Someone Else' })
        .expect(409);
      expect(httpConflict.body.code).toBe('operation_id_conflict');
      expect(await jobCount(co.id)).toBe(before + 1);

      const matches = await as(t, co.readKey).get('/api/v1/jobs').query({ q: claim }).expect(200);
      expect(matches.body.data.map((job: { id: string }) => job.id)).toEqual([first.id]);
    });

    it('replays over MCP a write first made over HTTP', async () => {
      const writer = await connect(co.writeKey);
      const args = { operation_id: opId(), customer_name: 'Http First', region: 'OH' };
      const http = await as(t, co.writeKey).post('/api/v1/jobs').send(args).expect(201);
      expect(http.headers['idempotent-replayed']).toBeUndefined();
      const before = await jobCount(co.id);
      expect(await ok(writer, 'create_job', args)).toEqual(http.body);
      expect(await jobCount(co.id)).toBe(before);
    });

    it('writes one feed entry for a replayed call', async () => {
      const writer = await connect(co.writeKey);
      const reader = await connect(co.readKey);
      const args = { operation_id: opId(), customer_name: 'Feed Once' };
      const job = await ok(writer, 'create_job', args);
      await ok(writer, 'create_job', args);
      await as(t, co.writeKey).post('/api/v1/jobs').send(args).expect(201);
      const entries = (await feed(reader, { kind: 'changes' })).filter((entry) => entry.job?.id === job.id);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        action: 'job.created',
        person: { name: 'Avery Stone' },
        via_key: true,
      });
    });
  });
});

describe('the /mcp endpoint over plain HTTP, 2025 revisions', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(initialize),
    });

  it('answers 401 with WWW-Authenticate: Bearer without a valid key', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer jms_thisKeyDoesNotExist0000000000000000000000' },
      { Authorization: `Basic ${co.writeKey}` },
    ];
    for (const headers of attempts) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as Problem;
      expect(body).toMatchObject({ code: 'unauthorized', status: 401 });
    }
  });

  it('answers initialize with a valid key', async () => {
    const res = await post({ Authorization: `Bearer ${co.readKey}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      id: number;
      result: { serverInfo: { name: string }; instructions: string };
    };
    expect(body.id).toBe(1);
    expect(body.result.serverInfo.name).toBe('job-management-service');
    expect(body.result.instructions).toContain('get_guide');
  });

  it('negotiates the newest protocol revision the SDK knows, keeps the older ones, and refuses an unknown MCP-Protocol-Version header', async () => {
    const rpc = (body: object, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${co.readKey}`,
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const agreed = async (asked: string) =>
      (
        (await (
          await rpc({ ...initialize, params: { ...initialize.params, protocolVersion: asked } })
        ).json()) as { result: { protocolVersion: string } }
      ).result.protocolVersion;
    for (const revision of SUPPORTED_PROTOCOL_VERSIONS) expect(await agreed(revision)).toBe(revision);
    // A revision the server does not know (a client newer than the SDK): the server offers its newest.
    expect(await agreed('2099-01-01')).toBe(LATEST_PROTOCOL_VERSION);

    // Later requests carry the agreed revision in a header (stateless: each one stands alone).
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await rpc(list, { 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION })).status).toBe(200);
    expect((await rpc(list)).status).toBe(200); // no header: 2025-03-26 is assumed, as the specification says
    const unknown = await rpc(list, { 'MCP-Protocol-Version': '1999-01-01' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Unsupported protocol version');
  });

  it('answers a single tools/call or tools/list as the SDK transport answers it in a batch, and leaves other shapes to it', async () => {
    const rpc = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${co.readKey}`,
          'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION,
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_context', arguments: {} },
    };
    const single = await rpc(call);
    expect(single.status).toBe(200);
    expect(single.headers.get('content-type')).toMatch(/^application\/json/);
    const alone = (await single.json()) as { id: number; result: { structuredContent: object } };
    expect(alone).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { structuredContent: { person: { name: 'Avery Stone' } } },
    });
    // A batch of one (the SDK's transport answers it; revisions before 2025-06-18 have batches) gets the same answer.
    const list = { jsonrpc: '2.0', id: 8, method: 'tools/list' };
    const listed = await (await rpc(list)).json();
    expect(listed).toMatchObject({ id: 8, result: { tools: expect.any(Array) } });
    expect(await (await rpc([list], { 'MCP-Protocol-Version': '2025-03-26' })).json()).toEqual(listed);
    // Unknown tools are a JSON-RPC error in the answer, as the SDK gives them.
    const unknown = (await (
      await rpc({ ...call, params: { name: 'no_such_tool', arguments: {} } })
    ).json()) as { error: { code: number } };
    expect(unknown.error.code).toBe(-32602);
    // Sent unlike an assistant's call, it gets the SDK transport's answer.
    expect((await rpc(call, { Accept: 'application/json' })).status).toBe(406);
    expect((await rpc(call, { 'MCP-Protocol-Version': '1999-01-01' })).status).toBe(400);
    expect((await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await rpc({ jsonrpc: '2.0', id: null, method: 'tools/call' })).status).toBe(400);
  });

  it('stops answering a key once it is revoked', async () => {
    const { id, key } = await newKey(co, 2, 'read');
    const client = await connect(key);
    expect(await ok(client, 'get_context', {})).toMatchObject({ person: { name: 'Dana White' } });
    await t.http.delete(`/admin/v1/keys/${id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(204);
    const res = await post({ Authorization: `Bearer ${key}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('answers 405 to GET and DELETE, with or without a key', async () => {
    for (const method of ['GET', 'DELETE']) {
      const attempts: Record<string, string>[] = [{}, { Authorization: `Bearer ${co.writeKey}` }];
      for (const headers of attempts) {
        const res = await fetch(`${t.url}/mcp`, {
          method,
          headers: { Accept: 'text/event-stream', ...headers },
        });
        expect(res.status).toBe(405);
        expect(((await res.json()) as Problem).code).toBe('method_not_allowed');
      }
    }
  });
});
