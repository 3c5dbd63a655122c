/**
 * One scenario for both transports: every action a tool writes to the change feed, then the
 * structured `data` of each entry as list_changes and get_job_activity answer it. A program must
 * be able to follow the feed without reading `summary`.
 */
import type { components } from '../../sdk/src/schema';
import { opId, type TestCompany } from './app';

type Entry = components['schemas']['ChangeEntry'];
type ActivityEntry = components['schemas']['ActivityEntry'];
type ChangeData = components['schemas']['ChangeData'];

/** Calls a tool by name with MCP-style merged arguments and returns its answer. */
export type CallTool = <T = Record<string, unknown>>(
  tool: string,
  args: Record<string, unknown>,
) => Promise<T>;

interface Named {
  id: string;
  name: string;
}

async function feedAfter(call: CallTool, cursor: string, settle: () => Promise<void>): Promise<Entry[]> {
  await settle();
  const entries: Entry[] = [];
  for (;;) {
    const page = await call<{ data: Entry[]; next_cursor: string }>('list_changes', { limit: 100, cursor });
    if (page.data.length === 0) return entries;
    entries.push(...page.data);
    cursor = page.next_cursor;
  }
}

async function feedCursor(call: CallTool, settle: () => Promise<void>): Promise<string> {
  await settle();
  let cursor: string | undefined;
  for (;;) {
    const page = await call<{ data: Entry[]; next_cursor: string }>('list_changes', {
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    cursor = page.next_cursor;
    if (page.data.length === 0) return cursor;
  }
}

/**
 * Runs the scenario with `write` (a write key of `co`'s first person) and checks the entries it
 * wrote with `read`. `settle` waits for the feed to show committed writes.
 */
export async function expectChangeData(
  co: TestCompany,
  write: CallTool,
  read: CallTool,
  settle: () => Promise<void>,
): Promise<void> {
  const cursor = await feedCursor(read, settle);
  const statuses = (await read<{ data: Named[] }>('list_job_statuses', {})).data;
  const status = (name: string) => {
    const found = statuses.find((s) => s.name === name);
    if (!found) throw new Error(`no status ${name}`);
    return { id: found.id, name: found.name };
  };
  const items = (
    await read<{ data: { code: string; per_day: boolean }[] }>('search_price_list', {
      q: 'drywall',
      limit: 50,
    })
  ).data;
  const plain = items.find((item) => !item.per_day);
  if (!plain) throw new Error('no plain drywall item');
  const dana = { id: co.people[1].id, name: co.people[1].name };

  const job = await write<{ id: string; title: string }>('create_job', {
    operation_id: opId(),
    customer_name: 'Data Dee',
  });
  const at = { job_id: job.id };
  await write('move_job_status', { ...at, operation_id: opId(), status: 'Drying' });
  await write('update_job_overview', {
    ...at,
    operation_id: opId(),
    carrier: 'Acme Mutual',
    water_category: 2,
  });
  await write('update_job_overview', { ...at, operation_id: opId(), carrier: 'Beta Insurance' });
  await write('assign_job', { ...at, operation_id: opId(), teammate: 'Dana Brooks' });
  await write('unassign_job', { ...at, person: 'Dana Brooks', operation_id: opId() });
  const added = await write<{ contact: { id: string } }>('add_contact', {
    ...at,
    operation_id: opId(),
    name: 'Pat Adjuster',
    role: 'adjuster',
  });
  await write('update_contact', {
    ...at,
    contact_id: added.contact.id,
    operation_id: opId(),
    phone: '217-555-0100',
  });
  const note = await write<{ id: string }>('add_note', {
    ...at,
    operation_id: opId(),
    text: 'Moisture map done',
  });
  await write('correct_note', {
    ...at,
    note_id: note.id,
    operation_id: opId(),
    text: 'Moisture map done, 3 rooms',
  });
  await write('retract_note', { ...at, note_id: note.id, operation_id: opId() });
  const created = await write<{
    estimate: { id: string; totals: { total_cents: number; currency: string } };
  }>('create_estimate', {
    ...at,
    operation_id: opId(),
    rooms: [{ name: 'Kitchen' }],
    line_items: [{ code: plain.code, quantity: 10, room: 'Kitchen' }],
  });
  const estimate = created.estimate.id;
  const more = await write<{ added: { id: string }[]; totals: { total_cents: number; currency: string } }>(
    'add_line_items',
    {
      estimate_id: estimate,
      operation_id: opId(),
      line_items: [{ code: plain.code, quantity: 5 }],
    },
  );
  const removed = await write<{ totals: { total_cents: number; currency: string } }>('remove_line_item', {
    estimate_id: estimate,
    line_id: more.added[0].id,
    operation_id: opId(),
  });
  await write('cancel_job', { ...at, operation_id: opId(), reason: 'Customer went elsewhere' });
  await write('reopen_job', { ...at, operation_id: opId() });
  await write('undo_my_last_action', { operation_id: opId() });

  const entries = (await feedAfter(read, cursor, settle)).filter((e) => e.job?.id === job.id);
  const money = (totals: { total_cents: number; currency: string }) => ({
    cents: totals.total_cents,
    currency: totals.currency,
  });
  const contact = { id: added.contact.id, name: 'Pat Adjuster', role: 'adjuster' };
  const reopened = entries.find((e) => e.action === 'job.reopened');
  const expected: ChangeData[] = [
    { action: 'job.created', title: job.title, status: status('New') },
    { action: 'job.status_moved', from: status('New'), to: status('Drying') },
    {
      action: 'job.overview_updated',
      fields: [
        { field: 'carrier', before: null, after: 'Acme Mutual' },
        { field: 'water_category', before: null, after: 2 },
      ],
    },
    {
      action: 'job.overview_updated',
      fields: [{ field: 'carrier', before: 'Acme Mutual', after: 'Beta Insurance' }],
    },
    { action: 'job.assigned', teammate: dana },
    { action: 'job.unassigned', teammate: dana },
    { action: 'contact.added', contact },
    { action: 'contact.updated', contact },
    { action: 'note.added', note_id: note.id },
    { action: 'note.corrected', note_id: note.id },
    { action: 'note.retracted', note_id: note.id },
    { action: 'estimate.created', estimate_id: estimate, total: money(created.estimate.totals) },
    { action: 'estimate.lines_added', estimate_id: estimate, total: money(more.totals) },
    { action: 'estimate.line_removed', estimate_id: estimate, total: money(removed.totals) },
    { action: 'job.cancelled', reason: 'Customer went elsewhere' },
    { action: 'job.reopened', status: status('Drying') },
    { action: 'action.undone', undone: { id: reopened?.id ?? 'missing', action: 'job.reopened' } },
  ];
  // The overview's fields come in the order the request named them; compare them as a set.
  const sorted = (data: ChangeData | null) =>
    data?.action === 'job.overview_updated'
      ? { ...data, fields: [...data.fields].sort((a, b) => a.field.localeCompare(b.field)) }
      : data;
  expect(entries.map((e) => sorted(e.data))).toEqual(expected);
  // The entry's own action and its data's agree, so a program can switch on either.
  for (const entry of entries) expect(entry.data?.action).toBe(entry.action);
  // Totals are real: the second line raised the total, removing it brought it back.
  expect(more.totals.total_cents).toBeGreaterThan(created.estimate.totals.total_cents);
  expect(removed.totals.total_cents).toBe(created.estimate.totals.total_cents);

  // The job's activity carries the same details, newest first.
  const activity = await read<{ data: ActivityEntry[] }>('get_job_activity', { job_id: job.id, limit: 100 });
  expect(activity.data.map((e) => ({ id: e.id, data: sorted(e.data) }))).toEqual(
    entries.map((e) => ({ id: e.id, data: sorted(e.data) })).reverse(),
  );
}
