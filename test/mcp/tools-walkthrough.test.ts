/**
 * The tools of jobs, people, notes, estimates and standards over MCP, through the official client,
 * in both protocol eras (each in a company of its own).
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { MCP_ERAS, connectMcp } from '../support/mcp';

let t: TestApp;
let co: TestCompany;
let writer: Client;
let reader: Client;

async function ok(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

async function problem(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; errors?: { path: string }[] }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [content] = result.content;
  return JSON.parse(content.type === 'text' ? content.text : '{}');
}

beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

describe.each(MCP_ERAS)('%s era', (era) => {
  beforeAll(async () => {
    co = await createCompany(t, { credits: 3 });
    writer = await connectMcp(t, co.writeKey, { era });
    reader = await connectMcp(t, co.readKey, { era });
  });
  afterAll(async () => {
    await writer.close();
    await reader.close();
  });

  it('runs a job through people, notes, the board and an estimate', async () => {
    const job = await ok(writer, 'create_job', {
      operation_id: opId(),
      customer_name: 'Ben Carter',
      region: 'TX',
    });
    const jobId = job.id as string;
    expect(
      await ok(writer, 'update_job_overview', {
        job_id: jobId,
        water_category: 3,
        cause_of_loss: 'Sewer backup',
      }),
    ).toMatchObject({ water_category: 3 });
    expect(
      await ok(writer, 'add_contact', {
        job_id: jobId,
        operation_id: opId(),
        name: 'Priya Shah',
        role: 'adjuster',
      }),
    ).toMatchObject({ outcome: 'added' });
    expect(await ok(writer, 'assign_job', { job_id: jobId, teammate: 'Sam Okafor' })).toMatchObject({
      assignees: [{ name: 'Sam Okafor' }],
    });
    expect(
      await ok(writer, 'unassign_job', { job_id: jobId, person: 'sam okafor', operation_id: opId() }),
    ).toMatchObject({ assignees: [] });
    expect(await ok(writer, 'move_job_status', { job_id: jobId, status: 'mitigation' })).toMatchObject({
      status: 'Mitigation',
    });

    const note = await ok(writer, 'add_note', {
      job_id: `#${job.job_number}`,
      operation_id: opId(),
      text: 'Category 3 loss; crew in PPE',
    });
    await ok(writer, 'correct_note', {
      job_id: jobId,
      note_id: note.id,
      text: 'Category 3 loss; crew in full PPE',
    });
    const activity = await ok(reader, 'get_job_activity', { job_id: jobId, kind: 'notes' });
    expect((activity.data as { note: { history: unknown[] } }[])[0].note.history).toHaveLength(1);
    expect(await ok(writer, 'retract_note', { job_id: jobId, note_id: note.id })).toMatchObject({
      retracted: { id: note.id, corrections: 1 },
    });

    const customers = await ok(reader, 'lookup_customer', { q: 'shah', role: 'adjuster' });
    expect((customers.data as { name: string }[]).map((c) => c.name)).toEqual(['Priya Shah']);

    const items = await ok(reader, 'get_price_list_item', { codes: ['DRY-AM-STD', 'DRY-AM-STX'] });
    expect((items.not_found as { near_matches: { code: string }[] }[])[0].near_matches[0].code).toBe(
      'DRY-AM-STD',
    );
    expect(
      ((await ok(reader, 'search_price_list', { q: 'air scrubber' })).data as unknown[]).length,
    ).toBeGreaterThan(0);
    const created = await ok(writer, 'create_estimate', {
      job_id: jobId,
      operation_id: opId(),
      rooms: [{ name: 'Basement', length: 20, width: 15, height: 8, drying_days: 4 }],
      line_items: [
        { code: 'DRY-AM-STD', units_per_day: 3, room: 'Basement' },
        { code: 'NOPE-1', quantity: 1 },
      ],
    });
    expect(created.credits).toEqual({ used: 1, remaining: 2 });
    expect((created.rejected_lines as { problem: string }[])[0].problem).toBe('unknown_code');
    const estimate = created.estimate as { id: string; region: { code: string } };
    expect(estimate.region.code).toBe('TX');
    expect(await ok(reader, 'get_estimate', { estimate_id: estimate.id, view: 'room_totals' })).toMatchObject(
      {
        rooms: [{ name: 'Basement', floor_area_sf: 300 }],
      },
    );

    const standards = await ok(reader, 'search_standards', { q: 'category 3 water' });
    expect((standards.data as unknown[]).length).toBeGreaterThan(0);
    expect((await as(t, co.readKey).get(`/api/v1/jobs/${jobId}`).expect(200)).body.estimates).toHaveLength(1);
  });

  it('answers problems as isError results', async () => {
    const job = await ok(writer, 'create_job', { operation_id: opId() });
    expect(
      (await problem(reader, 'add_note', { job_id: job.id, operation_id: opId(), text: 'hi' })).code,
    ).toBe('write_key_required');
    expect(
      (await problem(writer, 'add_note', { job_id: job.id, text: 'no operation id' })).errors!.map(
        (e) => e.path,
      ),
    ).toEqual(['/operation_id']);
    expect((await problem(writer, 'move_job_status', { job_id: job.id, status: 'Somewhere' })).code).toBe(
      'unknown_status',
    );
    expect((await problem(writer, 'reopen_job', { job_id: job.id })).code).toBe('invalid_state');
    expect((await problem(writer, 'retract_note', { job_id: job.id, note_id: 'note_missing' })).code).toBe(
      'not_found',
    );
    expect(
      (
        await problem(writer, 'update_line_item', {
          estimate_id: 'est_missing',
          line_id: 'line_x',
          quantity: 2,
        })
      ).code,
    ).toBe('not_found');
  });
});
