/**
 * A call that stops for a person's choice, over MCP (src/transports/mcp/human-choice.ts). In the
 * 2026-07-28 revision, with a client that declares form elicitation, undo going past a change it
 * cannot take back and export_pdf making an estimate final despite high findings answer
 * `input_required` with a form for the person and a sealed requestState; the person's yes runs
 * the call with the confirmation, their no answers the problem, with nothing written. A state
 * altered, expired, another key's or another call's is refused. Without the capability, and in
 * the 2025 era, the 409 problem comes as before.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { components } from '../../sdk/src/schema';
import {
  as,
  companyDate,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { draftKitchenEstimate } from '../support/estimates';
import { MODERN_REVISION, callTool, connectMcp, problemOf } from '../support/mcp';

type PdfExport = components['schemas']['PdfExport'];
type PacketBuild = components['schemas']['PacketBuild'];
type Entry = components['schemas']['ChangeEntry'];

let t: TestApp;

beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t?.close();
});

const FORMS = { elicitation: { form: {} } };

function local(url: string): string {
  const link = new URL(url);
  return `${t.url}${link.pathname}${link.search}`;
}

async function feed(key: string): Promise<Entry[]> {
  return (await as(t, key).get('/api/v1/changes?limit=100').expect(200)).body.data as Entry[];
}

/**
 * A job with a draft estimate and a drying log begun three days ago in Kitchen and Hall, read only
 * in Kitchen on day 1: the readiness check has high findings (days monitored without readings).
 */
async function jobWithFindings(
  co: TestCompany,
): Promise<{ id: string; job_number: number; estimateId: string }> {
  const write = as(t, co.writeKey);
  const job = (
    await write.post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Dana Reyes' }).expect(201)
  ).body;
  const estimate = await draftKitchenEstimate(t, co.writeKey, job.id);
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/drying-log`)
    .send({
      operation_id: opId(),
      start_date: companyDate(co, -3),
      rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
    })
    .expect(201);
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
    .send({ operation_id: opId(), day: 1, area: 'Kitchen', readings: [{ metric: 'drywall', value: 9 }] })
    .expect(201);
  return { ...job, estimateId: estimate.id };
}

/** Downloads the estimate's packet over HTTP (the findings confirmed as the page does), which makes it final. */
async function finalise(co: TestCompany, jobId: string): Promise<Entry> {
  const path = `/api/v1/jobs/${jobId}/export-pdf?documents=estimate`;
  const asked = await as(t, co.writeKey).get(path).expect(409);
  const keys = (asked.body.findings as { key: string }[]).map(
    (f) => `&confirm_findings=${encodeURIComponent(f.key)}`,
  );
  const link = (
    await as(t, co.writeKey)
      .get(path + keys.join(''))
      .expect(200)
  ).body as PdfExport;
  let build = (await (await fetch(local(link.pdf_url), { method: 'POST' })).json()) as PacketBuild;
  for (let tries = 0; build.state !== 'ready' && tries < 600; tries++) {
    expect(build.state).not.toBe('failed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  await (await fetch(local(build.download_url!))).arrayBuffer();
  for (let tries = 0; !build.delivered && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  expect(build.delivered).toBe(true);
  // The feed shows an entry once no earlier transaction can still commit (on PostgreSQL, a moment later).
  await feedSettled(t);
  return (await feed(co.readKey)).filter((e) => e.action === 'estimate.finalized').at(-1)!;
}

/** A company whose key's last change (an estimate made final) undo cannot take back, after a drying note it can. */
async function finalisedAfterNote() {
  const co = await createCompany(t, { credits: 10 });
  const job = await jobWithFindings(co);
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/drying-log/notes`)
    .send({ operation_id: opId(), text: 'Moved two air movers to the hall' })
    .expect(201);
  const finalised = await finalise(co, job.id);
  return { co, job, finalised };
}

async function dryingNotes(co: TestCompany, jobId: string): Promise<string[]> {
  const log = (await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/drying-log`).expect(200)).body;
  return (log.notes as { text: string }[]).map((note) => note.text);
}

/** A form answer, and the forms the client was asked to show. */
function person(answer: (request: ElicitRequest) => ElicitResult) {
  const asked: ElicitRequest['params'][] = [];
  return {
    asked,
    elicit: (request: ElicitRequest) => {
      asked.push(request.params);
      return answer(request);
    },
  };
}

const yes = () => ({ action: 'accept' as const, content: { confirm: true } });

describe('undo going past a change it cannot take back, asked in the form (2026-07-28)', () => {
  it('takes the older change back on the person’s yes; a repeat of the call answers the same', async () => {
    const { co, job, finalised } = await finalisedAfterNote();
    const office = person(yes);
    const client = await connectMcp(t, co.writeKey, {
      era: 'modern',
      capabilities: FORMS,
      elicit: office.elicit,
    });
    const operationId = opId();
    const done = await callTool(client, 'undo_my_last_action', { operation_id: operationId });
    expect(done.isError).toBeFalsy();
    const answer = done.structuredContent as components['schemas']['UndoResult'];
    expect(answer.not_undoable?.entry_id).toBe(finalised.id);
    expect(answer.undone.effect).toBe(
      `deleted drying note 'Moved two air movers to the hall' on #${job.job_number}`,
    );
    expect(office.asked).toHaveLength(1);
    expect(office.asked[0]).toMatchObject({
      mode: 'form',
      message: expect.stringContaining(`"${finalised.summary}"`),
      requestedSchema: { properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    expect(office.asked[0]!.message).toContain(answer.undone.effect);
    expect(await dryingNotes(co, job.id)).toEqual([]);

    // The call again as sent (its answer lost, say) is its first answer: nothing more is undone.
    const again = await callTool(client, 'undo_my_last_action', { operation_id: operationId });
    expect(again.structuredContent).toEqual(done.structuredContent);
    expect(office.asked).toHaveLength(1);
    expect((await feed(co.readKey)).filter((e) => e.action === 'action.undone')).toHaveLength(1);
    await client.close();
  });

  it('answers the problem on a no or a cancel, with nothing written, even when the assistant sent confirm_skip', async () => {
    const { co, job, finalised } = await finalisedAfterNote();
    const before = await feed(co.readKey);
    for (const action of ['decline', 'cancel'] as const) {
      const office = person(() => ({ action }));
      const client = await connectMcp(t, co.writeKey, {
        era: 'modern',
        capabilities: FORMS,
        elicit: office.elicit,
      });
      const refused = await callTool(client, 'undo_my_last_action', {
        operation_id: opId(),
        confirm_skip: finalised.id,
      });
      expect(problemOf(refused)).toMatchObject({ status: 409, code: 'confirmation_required' });
      expect(problemOf(refused).detail).toContain(`send confirm_skip "${finalised.id}"`);
      expect(office.asked).toHaveLength(1);
      await client.close();
    }
    // Accepting the form without ticking the box is no yes either.
    const unticked = person(() => ({ action: 'accept', content: { confirm: false } }));
    const client = await connectMcp(t, co.writeKey, {
      era: 'modern',
      capabilities: FORMS,
      elicit: unticked.elicit,
    });
    expect(problemOf(await callTool(client, 'undo_my_last_action', { operation_id: opId() })).code).toBe(
      'confirmation_required',
    );
    await client.close();
    expect(await dryingNotes(co, job.id)).toEqual(['Moved two air movers to the hall']);
    expect(await feed(co.readKey)).toEqual(before);
  });
});

describe('export_pdf making an estimate final despite high findings, asked in the form (2026-07-28)', () => {
  it('gives the link that finalises once the person confirmed every finding, and refuses otherwise', async () => {
    const co = await createCompany(t, { credits: 10 });
    const job = await jobWithFindings(co);
    const findings = (
      await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/export-pdf?documents=estimate`).expect(409)
    ).body.findings as { key: string; message: string }[];
    expect(findings.length).toBeGreaterThan(0);

    const everyOne = person(() => ({
      action: 'accept',
      content: { confirm: true, items: findings.map((finding) => finding.key) },
    }));
    const client = await connectMcp(t, co.readKey, {
      era: 'modern',
      capabilities: FORMS,
      elicit: everyOne.elicit,
    });
    const link = await callTool(client, 'export_pdf', { job_id: job.id, documents: ['estimate'] });
    expect(link.isError).toBeFalsy();
    expect((link.structuredContent as PdfExport).finalizes_estimate).toBe(true);
    const [form] = everyOne.asked;
    expect(form!.message).toContain('"Water mitigation" final');
    for (const finding of findings) expect(form!.message).toContain(finding.message);
    expect(form).toMatchObject({
      requestedSchema: {
        properties: {
          items: {
            type: 'array',
            items: { anyOf: findings.map(({ key, message }) => ({ const: key, title: message })) },
          },
          confirm: { type: 'boolean' },
        },
      },
    });
    // The link carries the confirmation: its Download queues the build instead of asking again.
    const queued = await fetch(local((link.structuredContent as PdfExport).pdf_url), { method: 'POST' });
    expect(queued.status).toBe(202);
    await client.close();

    // One finding left unticked is no confirmation: the problem, as HTTP answers it.
    const allButOne = person(() => ({
      action: 'accept',
      content: { confirm: true, items: findings.slice(1).map((finding) => finding.key) },
    }));
    const partly = await connectMcp(t, co.readKey, {
      era: 'modern',
      capabilities: FORMS,
      elicit: allButOne.elicit,
    });
    const refused = await callTool(partly, 'export_pdf', {
      job_id: job.id,
      documents: ['estimate'],
      confirm_findings: findings.map((finding) => finding.key),
    });
    expect(problemOf(refused)).toMatchObject({ status: 409, code: 'findings_unconfirmed' });
    await partly.close();
  });
});

describe('clients that cannot be asked get the problem as before', () => {
  it.each([
    ['a 2026-07-28 client without elicitation', { era: 'modern' as const }],
    ['a 2025 client (stateless HTTP)', { era: 'legacy' as const, capabilities: FORMS }],
  ])('%s: 409 confirmation_required, and confirm_skip still works', async (_, options) => {
    const { co, job, finalised } = await finalisedAfterNote();
    const client = await connectMcp(t, co.writeKey, options);
    const refused = await callTool(client, 'undo_my_last_action', { operation_id: opId() });
    expect(problemOf(refused)).toMatchObject({ status: 409, code: 'confirmation_required' });
    expect(await dryingNotes(co, job.id)).toEqual(['Moved two air movers to the hall']);
    const done = await callTool(client, 'undo_my_last_action', {
      operation_id: opId(),
      confirm_skip: finalised.id,
    });
    expect(done.isError).toBeFalsy();
    expect(await dryingNotes(co, job.id)).toEqual([]);
    await client.close();
  });
});

describe('the wire: input_required, requestState, and states that are refused', () => {
  let rpcId = 0;

  /** One 2026-07-28 tools/call as a client sends it, declaring form elicitation. */
  async function modernCall(key: string, args: Record<string, unknown>, retry: Record<string, unknown> = {}) {
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Protocol-Version': MODERN_REVISION,
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'undo_my_last_action',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++rpcId,
        method: 'tools/call',
        params: {
          name: 'undo_my_last_action',
          arguments: args,
          ...retry,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
            'io.modelcontextprotocol/clientCapabilities': FORMS,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      result?: Record<string, unknown> & { resultType: string; isError?: boolean };
      error?: { code: number; message: string };
    };
  }

  it('answers input_required with the form and a sealed state, and refuses a state that fails its check', async () => {
    const { co, job, finalised } = await finalisedAfterNote();
    const args = { operation_id: opId() };
    const first = await modernCall(co.writeKey, args);
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        choice: {
          method: 'elicitation/create',
          params: { mode: 'form', message: expect.stringContaining(finalised.summary!) },
        },
      },
      requestState: expect.stringMatching(/^v1\./),
    });
    const state = first.result!.requestState as string;
    const accept = { inputResponses: { choice: { action: 'accept', content: { confirm: true } } } };
    const refusedState = { code: -32602, message: 'Invalid or expired requestState' };

    const altered = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.at(-1)}`;
    expect((await modernCall(co.writeKey, args, { ...accept, requestState: altered })).error).toMatchObject(
      refusedState,
    );
    // Another key of the company, and this key on another call, cannot use it.
    expect(
      (await modernCall(co.otherWriteKey, args, { ...accept, requestState: state })).error,
    ).toMatchObject(refusedState);
    expect(
      (await modernCall(co.writeKey, { operation_id: opId() }, { ...accept, requestState: state })).error,
    ).toMatchObject(refusedState);
    // Past its 15 minutes.
    const now = Date.now();
    const later = jest.spyOn(Date, 'now').mockImplementation(() => now + 16 * 60_000);
    try {
      expect((await modernCall(co.writeKey, args, { ...accept, requestState: state })).error).toMatchObject(
        refusedState,
      );
    } finally {
      later.mockRestore();
    }
    // An answer without the state is no answer: the person is asked again.
    expect((await modernCall(co.writeKey, args, accept)).result?.resultType).toBe('input_required');
    expect(await dryingNotes(co, job.id)).toEqual(['Moved two air movers to the hall']);

    const done = await modernCall(co.writeKey, args, { ...accept, requestState: state });
    expect(done.result).toMatchObject({ resultType: 'complete', structuredContent: { preview: false } });
    expect(done.result?.isError).toBeFalsy();
    expect(await dryingNotes(co, job.id)).toEqual([]);
    // The retry again (its answer lost) is the first answer.
    const replay = await modernCall(co.writeKey, args, { ...accept, requestState: state });
    expect(replay.result?.structuredContent).toEqual(done.result?.structuredContent);
    expect((await feed(co.readKey)).filter((e) => e.action === 'action.undone')).toHaveLength(1);
  });
});
