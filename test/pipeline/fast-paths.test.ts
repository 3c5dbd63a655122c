/**
 * The fast paths (src/infrastructure/db/fast-transaction, src/transports/mcp/fast-call) are
 * switched off by FAST_WRITES=off and FAST_MCP_CALLS=off. The same writes and MCP calls run here
 * with both on and with both off, and must answer alike: create_job, add_note, a drying log and
 * its readings, a replay, a conflict, a write refused after its statements ran (nothing of it
 * stays), undo; tools/list, tools/call, a batch, and a call whose arguments are not an object; and
 * the same 2026-07-28 requests (good ones and each refusal) answered alike with the fast MCP call
 * on and off. Run on PGlite and on PostgreSQL (DATABASE_URL), where the fast transaction is the
 * one that differs.
 */
import {
  as,
  companyDate,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { wireRequest } from '../support/mcp';
import { hasFastTransactions } from '../../src/infrastructure/db/fast-transaction/transaction';

/** What each setting answered to the same 2026-07-28 requests, compared once both have run. */
const modernAnswers = new Map<string, unknown[]>();

/** An answer without what differs between two services by nature: ids, times, request ids. */
function comparable(status: number, contentType: string | null, text: string): unknown {
  const plain = text
    .replace(/\b[a-z]{2,5}_[A-Za-z0-9]{8,}\b/g, '<id>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, '<time>')
    .replace(/"request_id":"[^"]*"/g, '"request_id":"<id>"')
    .replace(/\\"request_id\\":\\"[^"\\]*\\"/g, '\\"request_id\\":\\"<id>\\"');
  return { status, type: contentType?.split(';')[0], body: JSON.parse(plain) };
}

describe.each(['on', 'off'])('fast paths %s', (setting) => {
  let t: TestApp;
  let co: TestCompany;

  beforeAll(async () => {
    t = await startApp({ FAST_WRITES: setting, FAST_MCP_CALLS: setting });
    co = await createCompany(t, { credits: 100 });
    // The file's first node pays for the cold imports: on a loaded machine, past jest's 30 s.
  }, 120_000);
  afterAll(() => t.close());

  const write = () => as(t, co.writeKey);
  const mcp = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${co.writeKey}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('is read from the settings, and the fast transaction is used only on PostgreSQL', () => {
    expect(t.config.fastPaths).toEqual({ writes: setting === 'on', mcpCalls: setting === 'on' });
    expect(hasFastTransactions(t.db)).toBe(setting === 'on' && Boolean(process.env.DATABASE_URL));
  });

  it('writes a job, a note, a drying log and readings, and reads them back', async () => {
    const job = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Maria Alvarez', customer_phone: '(555) 201-3344' })
        .expect(201)
    ).body as { id: string };
    await write()
      .post(`/api/v1/jobs/${job.id}/notes`)
      .send({ operation_id: opId(), text: 'Water under the sink' })
      .expect(201);
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }], start_date: companyDate(co, -2) })
      .expect(201);
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
      .send({
        operation_id: opId(),
        day: 1,
        rows: [
          {
            area: 'Kitchen',
            readings: [
              { metric: 'temp_f', value: 75 },
              { metric: 'rh_pct', value: 60 },
            ],
          },
        ],
      })
      .expect(201);
    const detail = (await write().get(`/api/v1/jobs/${job.id}`).expect(200)).body;
    expect(detail.customer_name).toBe('Maria Alvarez');
    expect(JSON.stringify(detail)).toContain('Water under the sink');
    const log = (await write().get(`/api/v1/jobs/${job.id}/drying-log?detail=readings`).expect(200)).body;
    expect(JSON.stringify(log.readings)).toContain('"value":75');
  });

  it('replays a same request, refuses another one with the same operation_id, and undoes', async () => {
    const body = { operation_id: opId(), customer_name: 'Replayed Customer' };
    const first = await write().post('/api/v1/jobs').send(body).expect(201);
    const again = await write().post('/api/v1/jobs').send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const conflict = await write()
      .post('/api/v1/jobs')
      .send({ ...body, customer_name: 'Someone Else' })
      .expect(409);
    expect(conflict.body.status).toBe(409);
    const undone = await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect(undone.body.undone.tool).toBe('create_job');
    await write().get(`/api/v1/jobs/${first.body.id}`).expect(404);
  });

  it('keeps nothing of a write refused after its statements ran', async () => {
    const job = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Rolled Back' })
        .expect(201)
    ).body as { id: string };
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }], start_date: companyDate(co, -2) })
      .expect(201);
    const before = (await write().get(`/api/v1/jobs/${job.id}/drying-log?detail=readings`).expect(200)).body;
    // The job is locked and its log read before the day is found to be after today.
    const operationId = opId();
    const refused = await write()
      .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
      .send({
        operation_id: operationId,
        day: 10,
        rows: [{ area: 'Kitchen', readings: [{ metric: 'temp_f', value: 70 }] }],
      });
    expect(refused.status).toBe(422);
    expect((await write().get(`/api/v1/jobs/${job.id}/drying-log?detail=readings`).expect(200)).body).toEqual(
      before,
    );
    // Not remembered: the same operation_id with a good request goes through.
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
      .send({
        operation_id: operationId,
        day: 1,
        rows: [{ area: 'Kitchen', readings: [{ metric: 'temp_f', value: 70 }] }],
      })
      .expect(201);
  });

  it('answers tools/list, tools/call, a batch and a call with bad arguments over MCP', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const listed = (await (await mcp(list)).json()) as { result: { tools: { name: string }[] } };
    expect(listed.result.tools.map((tool) => tool.name)).toContain('create_job');

    const create = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'create_job', arguments: { operation_id: opId(), customer_name: 'Over MCP' } },
    };
    const created = (await (await mcp(create)).json()) as {
      result: { isError?: boolean; structuredContent: { id: string } };
    };
    expect(created.result.isError).toBeUndefined();
    const read = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'get_job', arguments: { job_id: created.result.structuredContent.id } },
    };
    const got = (await (await mcp(read)).json()) as {
      result: { structuredContent: { customer_name: string } };
    };
    expect(got.result.structuredContent.customer_name).toBe('Over MCP');

    const batch = (await (await mcp([list, read], { 'MCP-Protocol-Version': '2025-03-26' })).json()) as {
      id: number;
    }[];
    expect(batch.map((answer) => answer.id).sort()).toEqual([1, 3]);
    expect(batch.find((answer) => answer.id === 3)).toEqual({ jsonrpc: '2.0', ...got, id: 3 });

    const bad = (await (
      await mcp({ ...read, params: { name: 'get_job', arguments: ['not', 'an', 'object'] } })
    ).json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(bad.result.isError).toBe(true);
    expect(JSON.parse(bad.result.content[0].text)).toMatchObject({ status: 400 });

    const unknownMethod = (await (await mcp({ jsonrpc: '2.0', id: 4, method: 'prompts/list' })).json()) as {
      error: { code: number };
    };
    expect(unknownMethod.error.code).toBe(-32601);
  });

  it('answers 2026-07-28 requests: calls, the list, and each refusal of the headers or the revision', async () => {
    let id = 10;
    const modern = async (
      method: string,
      params: Record<string, unknown>,
      change: { headers?: Record<string, string>; revision?: string } = {},
    ) => {
      const wire = wireRequest('modern', id++, method, params);
      if (change.revision)
        (wire.body.params as { _meta: Record<string, unknown> })._meta[
          'io.modelcontextprotocol/protocolVersion'
        ] = change.revision;
      const res = await mcp(wire.body, { ...wire.headers, ...change.headers });
      return comparable(res.status, res.headers.get('content-type'), await res.text());
    };
    const create = { name: 'create_job', arguments: { operation_id: opId(), customer_name: 'Modern' } };
    const created = (await modern('tools/call', create)) as {
      body: { result: { structuredContent: { job_number: number } } };
    };
    const jobNumber = created.body.result.structuredContent.job_number;
    const answers = [
      await modern('tools/list', {}),
      created,
      await modern('tools/call', { name: 'get_job', arguments: { job_id: jobNumber } }),
      await modern('tools/call', { name: 'get_job', arguments: ['not', 'an', 'object'] }),
      await modern('tools/call', { name: 'no_such_tool', arguments: {} }),
      await modern(
        'tools/call',
        { name: 'get_context', arguments: {} },
        { headers: { 'Mcp-Name': 'get_job' } },
      ),
      await modern(
        'tools/call',
        { name: 'get_context', arguments: {} },
        { headers: { 'Mcp-Method': 'tools/list' } },
      ),
      await modern('tools/list', {}, { headers: { 'MCP-Protocol-Version': '2025-11-25' } }),
      await modern(
        'tools/list',
        {},
        { revision: '2099-01-01', headers: { 'MCP-Protocol-Version': '2099-01-01' } },
      ),
      await modern('server/discover', {}),
    ];
    expect(created.body.result.structuredContent).toMatchObject({ customer_name: 'Modern' });
    modernAnswers.set(setting, answers);
  });
});

it('answers the 2026-07-28 requests alike with the fast MCP call on and off', () => {
  expect(modernAnswers.get('on')).toHaveLength(10);
  expect(modernAnswers.get('on')).toEqual(modernAnswers.get('off'));
});
