/**
 * One office request done by an assistant in each MCP protocol era, through the official client
 * (the SDK's version 2): "The adjuster called about the Carter job: find it, note the call, and
 * tell me whether its claim is ready to send." The same calls get the same answers in 2026-07-28
 * and in 2025-11-25; what differs is the wire (no initialize, `_meta` on every request, the
 * standard headers, `resultType` and cache hints), which the test reads off the messages it
 * records. The transcripts (each request and answer, as sent) are written to
 * test/artifacts/mcp-eras/ for people to read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { openJob } from '../support/jobs';
import { MODERN_REVISION, type McpEra } from '../support/mcp';

interface Exchange {
  headers: Record<string, string>;
  request: { method: string; params?: Record<string, unknown> };
  status: number;
  answer: { result?: Record<string, unknown>; error?: unknown } | null;
}

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  await openJob(t, co.writeKey, { customer_name: 'Ben Carter', customer_phone: '(555) 301-2211' });
  await openJob(t, co.writeKey, { customer_name: 'Ana Cortez' });
});
afterAll(() => t.close());

/** A client whose every POST is recorded: the request's headers and body, and the JSON answer. */
async function recordingClient(era: McpEra, exchanges: Exchange[]): Promise<Client> {
  const recordingFetch = async (url: string | URL | Request, init?: RequestInit) => {
    const answer = await fetch(url, init);
    if (init?.method !== 'POST') return answer;
    const text = await answer.clone().text();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    delete headers.authorization;
    exchanges.push({
      headers,
      request: JSON.parse(String(init.body)),
      status: answer.status,
      answer: text ? (JSON.parse(text) as Exchange['answer']) : null,
    });
    return answer;
  };
  const client = new Client(
    { name: 'office-assistant', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      fetch: recordingFetch,
      requestInit: { headers: { Authorization: `Bearer ${co.writeKey}` } },
    }),
  );
  return client;
}

async function officeRequest(era: McpEra) {
  const exchanges: Exchange[] = [];
  const client = await recordingClient(era, exchanges);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  await client.listTools();
  const found = (await call('find_jobs', { q: 'carter' })) as { data: { id: string; job_number: number }[] };
  const jobId = found.data[0].id;
  const job = await call('get_job', { job_id: found.data[0].job_number });
  const note = await call('add_note', {
    job_id: jobId,
    operation_id: opId(),
    text: `Adjuster called (${era} era): asked whether the claim is ready.`,
  });
  const readiness = await call('check_claim_readiness', { job_id: jobId });
  await client.close();
  return { exchanges, found, job, note, readiness };
}

function writeTranscript(era: McpEra, exchanges: Exchange[]): void {
  const folder = path.join(__dirname, '../artifacts/mcp-eras');
  mkdirSync(folder, { recursive: true });
  const lines = exchanges.flatMap(({ headers, request, status, answer }) => [
    `## ${request.method}${typeof request.params?.name === 'string' ? ` ${request.params.name}` : ''}`,
    '',
    '```',
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
    '',
    JSON.stringify(request, null, 1).slice(0, 1500),
    '```',
    '',
    `Answer (HTTP ${status}):`,
    '',
    '```json',
    JSON.stringify(answer, null, 1).slice(0, 1500),
    '```',
    '',
  ]);
  writeFileSync(
    path.join(folder, `${era}.md`),
    [`# The office request in the ${era} era`, '', ...lines].join('\n'),
  );
}

const withoutIds = (value: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(value, (key, v) => (/(^id$|_id$|_at$)/.test(key) ? undefined : v)));

it('gives the same answers to the same request in 2026-07-28 and in 2025-11-25', async () => {
  const modern = await officeRequest('modern');
  const legacy = await officeRequest('legacy');
  writeTranscript('modern', modern.exchanges);
  writeTranscript('legacy', legacy.exchanges);

  expect(modern.found).toEqual(legacy.found);
  // The second run reads the first one's note: one service, one record, whichever era writes.
  expect({ ...legacy.job, recent_notes: [] }).toEqual({ ...modern.job, recent_notes: [] });
  expect(legacy.job.recent_notes).toEqual([expect.objectContaining({ text: modern.note.text })]);
  expect(withoutIds(modern.readiness)).toEqual(withoutIds(legacy.readiness));
  expect(modern.note.text).toMatch(/modern era/);
  expect(legacy.note.text).toMatch(/legacy era/);

  // 2026-07-28: no handshake; every request names the revision in `_meta` and in the headers,
  // every result says it is complete, and the tool list may be kept privately for a while.
  expect(modern.exchanges.map((e) => e.request.method)).not.toContain('initialize');
  for (const { headers, request, answer } of modern.exchanges) {
    expect(headers['mcp-protocol-version']).toBe(MODERN_REVISION);
    expect(headers['mcp-method']).toBe(request.method);
    expect(
      (request.params?._meta as Record<string, unknown> | undefined)?.[
        'io.modelcontextprotocol/protocolVersion'
      ],
    ).toBe(MODERN_REVISION);
    expect(answer?.result?.resultType).toBe('complete');
  }
  const modernList = modern.exchanges.find((e) => e.request.method === 'tools/list')?.answer?.result;
  expect(modernList).toMatchObject({ cacheScope: 'private', ttlMs: expect.any(Number) });

  // 2025-11-25: initialize first, then plain requests and results, without the new fields.
  expect(legacy.exchanges[0].request.method).toBe('initialize');
  expect(legacy.exchanges[0].answer?.result?.protocolVersion).toBe('2025-11-25');
  const legacyList = legacy.exchanges.find((e) => e.request.method === 'tools/list')?.answer?.result;
  expect(legacyList).not.toHaveProperty('ttlMs');
  expect(legacyList).not.toHaveProperty('resultType');
});
