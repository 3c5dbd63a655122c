/**
 * What an office assistant relies on (#17), over HTTP and MCP: the company's today, the feed
 * from a day or a moment, undo that says what it takes back (and can only say it), credits given
 * back by undo and never gained twice, and an estimate whose every line is rejected refused
 * without using a credit.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { components } from '../../sdk/src/schema';
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
import { connectMcp } from '../support/mcp';

type UndoResult = components['schemas']['UndoResult'];
type Entry = components['schemas']['ChangeEntry'];

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 10 });
});
afterAll(async () => {
  await t.close();
});

const write = () => as(t, co.writeKey);
const read = () => as(t, co.readKey);
const credits = async (): Promise<number> =>
  (await read().get('/api/v1/context').expect(200)).body.credits.remaining;

async function newJob(): Promise<{ id: string; job_number: number }> {
  return (
    await write()
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Maria Delgado' })
      .expect(201)
  ).body;
}

const ESTIMATE = {
  label: 'Water mitigation',
  rooms: [
    { name: 'Kitchen', length: 12, width: 10, height: 8 },
    { name: 'Laundry', length: 8, width: 6, height: 8 },
  ],
  line_items: [
    { description: 'Water extraction', room: 'Kitchen', unit: 'SF', quantity: 120, unit_price_cents: 123 },
    { description: 'Antimicrobial', room: 'Laundry', unit: 'SF', quantity: 48, unit_price_cents: 47 },
  ],
};

const money = (cents: number) =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const undo = async (body: Record<string, unknown> = {}): Promise<UndoResult> =>
  (
    await write()
      .post('/api/v1/undo')
      .send({ operation_id: opId(), ...body })
      .expect(200)
  ).body;

describe('get_context', () => {
  it("gives the company's date and wall-clock time in its timezone", async () => {
    const zone = await createCompany(t, { timezone: 'Pacific/Kiritimati' }); // UTC+14: its date is often not UTC's
    const context = (await as(t, zone.readKey).get('/api/v1/context').expect(200)).body;
    const expected = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Pacific/Kiritimati',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date());
    expect(context.company.today).toBe(expected);
    expect(context.company.local_time).toMatch(new RegExp(`^${expected}T\\d{2}:\\d{2}:\\d{2}\\+14:00$`));
    expect(Math.abs(new Date(context.company.local_time).getTime() - Date.now())).toBeLessThan(5_000);
  });
});

describe('list_changes since', () => {
  it('starts at a calendar date of the company or at a moment', async () => {
    const zone = await createCompany(t, { timezone: 'Pacific/Kiritimati' });
    const before = new Date(Date.now() - 1000).toISOString();
    const job = (
      await as(t, zone.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Today Tina' })
        .expect(201)
    ).body;
    await feedSettled(t);
    const { today } = (await as(t, zone.readKey).get('/api/v1/context').expect(200)).body.company;
    const page = async (since: string): Promise<Entry[]> =>
      (
        await as(t, zone.readKey)
          .get(`/api/v1/changes?since=${encodeURIComponent(since)}`)
          .expect(200)
      ).body.data;
    expect((await page(today)).map((e) => e.job?.id)).toContain(job.id);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(await page(tomorrow)).toEqual([]);
    expect((await page(before)).map((e) => e.action)).toContain('job.created');
    expect(await page(new Date(Date.now() + 60_000).toISOString())).toEqual([]);
    await as(t, zone.readKey).get('/api/v1/changes?since=yesterday').expect(400);
  });
});

describe('undo says what it takes back', () => {
  it('undoing create_estimate names the estimate, its rooms, lines and total, and gives the credit back once', async () => {
    const job = await newJob();
    const start = await credits();
    const operationId = opId();
    const created = (
      await write()
        .post(`/api/v1/jobs/${job.id}/estimates`)
        .send({ operation_id: operationId, ...ESTIMATE })
        .expect(201)
    ).body;
    expect(await credits()).toBe(start - 1);
    const total = money(created.estimate.totals.total_cents);

    const preview = await undo({ preview: true });
    expect(preview.preview).toBe(true);
    expect(preview.undone).toMatchObject({
      tool: 'create_estimate',
      record: { type: 'estimate', id: created.estimate.id },
      job: { id: job.id, job_number: job.job_number },
      credits_refunded: 1,
    });
    expect(preview.undone.effect).toBe(
      `deleted estimate 'Water mitigation' with 2 rooms and 2 lines on #${job.job_number}, total ${total}`,
    );
    // A preview changes nothing: the estimate, the credits and the feed are as they were.
    await read().get(`/api/v1/estimates/${created.estimate.id}`).expect(200);
    expect(await credits()).toBe(start - 1);
    await feedSettled(t);
    const feed = (await read().get('/api/v1/changes?limit=100&kind=changes').expect(200)).body
      .data as Entry[];
    expect(feed.filter((e) => e.action === 'action.undone' && e.job?.id === job.id)).toEqual([]);

    const done = await undo();
    expect(done.preview).toBe(false);
    expect(done.undone.effect).toBe(preview.undone.effect);
    await read().get(`/api/v1/estimates/${created.estimate.id}`).expect(404);
    expect(await credits()).toBe(start);
    // The original request again cannot use the credit (or gain one) a second time.
    const replay = await write()
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({ operation_id: operationId, ...ESTIMATE })
      .expect(409);
    expect(replay.body.code).toBe('operation_undone');
    expect(await credits()).toBe(start);
  });

  it('undoing added lines says which and how the total moves', async () => {
    const job = await newJob();
    const estimate = (
      await write()
        .post(`/api/v1/jobs/${job.id}/estimates`)
        .send({ operation_id: opId(), ...ESTIMATE })
        .expect(201)
    ).body.estimate;
    const added = (
      await write()
        .post(`/api/v1/estimates/${estimate.id}/line-items`)
        .send({
          operation_id: opId(),
          line_items: [
            {
              description: 'Baseboard removal',
              room: 'Kitchen',
              unit: 'LF',
              quantity: 44,
              unit_price_cents: 85,
            },
          ],
        })
        .expect(200)
    ).body;
    const done = await undo();
    expect(done.undone.tool).toBe('add_line_items');
    expect(done.undone.record.type).toBe('line');
    expect(done.undone.effect).toBe(
      `deleted line 'Baseboard removal' on #${job.job_number}; kept estimate 'Water mitigation', total ${money(added.totals.total_cents)} → ${money(estimate.totals.total_cents)}`,
    );
    expect(done.undone.credits_refunded).toBe(0);
  });

  it('gives back the credit a drying call used to set up the estimate', async () => {
    const job = await newJob();
    const start = await credits();
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
      .expect(201);
    expect(await credits()).toBe(start - 1);
    const done = await undo();
    expect(done.undone).toMatchObject({ tool: 'create_drying_log', credits_refunded: 1 });
    expect(await credits()).toBe(start);
  });

  it('a preview of what cannot be undone is refused like the undo', async () => {
    const other = await createCompany(t);
    const refused = await as(t, other.writeKey)
      .post('/api/v1/undo')
      .send({ operation_id: opId(), preview: true })
      .expect(409);
    expect(refused.body.code).toBe('undo_not_possible');
  });
});

describe('create_estimate with rejected lines', () => {
  it('refuses a request of which nothing can be added, and uses no credit', async () => {
    const job = await newJob();
    const start = await credits();
    const res = await write()
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({
        operation_id: opId(),
        line_items: [
          { code: 'DRY-AIRMOVER', quantity: 3 },
          { description: 'No unit', quantity: 1 },
        ],
      })
      .expect(422);
    expect(res.body.code).toBe('lines_rejected');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/line_items/0',
      '/body/line_items/1',
    ]);
    expect(res.body.detail).toContain('line 0');
    expect(await credits()).toBe(start);
    const summary = (await read().get(`/api/v1/jobs/${job.id}`).expect(200)).body;
    expect(summary.estimates ?? []).toEqual([]);
  });

  it('says first how many lines were rejected when some are added', async () => {
    const job = await newJob();
    const res = await write()
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({
        operation_id: opId(),
        line_items: [
          { description: 'Water extraction', unit: 'SF', quantity: 10, unit_price_cents: 100 },
          { code: 'NOPE-1', quantity: 1 },
        ],
      })
      .expect(201);
    expect(Object.keys(res.body)[0]).toBe('rejected_count');
    expect(res.body.rejected_count).toBe(1);
    expect(res.body.rejected_lines).toHaveLength(1);
  });
});

describe('create_job', () => {
  it('opens a job with every overview fact in one call', async () => {
    const facts = {
      title: 'Delgado - washer hose',
      loss_type: 'water',
      date_of_loss: '2026-11-24',
      cause_of_loss: 'Washing machine supply hose burst',
      water_category: 2,
      adjuster: 'Priya Shah',
      carrier: 'Acme Mutual',
      claim_number: 'CLM-0001',
      policy_number: 'POL-77',
      address_line1: '9 Oak Court',
      city: 'Springfield',
      region: 'IL',
      postal_code: '62704',
    };
    const created = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Maria Delgado', ...facts })
        .expect(201)
    ).body;
    const job = (await read().get(`/api/v1/jobs/${created.id}`).expect(200)).body;
    expect(job).toMatchObject({
      title: facts.title,
      loss_type: 'water',
      date_of_loss: '2026-11-24',
      cause_of_loss: facts.cause_of_loss,
      water_category: 2,
      claim: {
        adjuster: 'Priya Shah',
        carrier: 'Acme Mutual',
        claim_number: 'CLM-0001',
        policy_number: 'POL-77',
      },
    });
    expect(job.address_parts).toMatchObject({
      line1: '9 Oak Court',
      city: 'Springfield',
      region: 'IL',
      postal_code: '62704',
    });
    const found = (await read().get('/api/v1/jobs?q=priya').expect(200)).body.data.map(
      (j: { id: string }) => j.id,
    );
    expect(found).toContain(created.id);
  });

  it('warns about open jobs with the same phone, street address or claim number, and shows phones one way', async () => {
    const first = (
      await write()
        .post('/api/v1/jobs')
        .send({
          operation_id: opId(),
          customer_name: 'Ann Lee',
          customer_phone: '217.555.0142',
          address_line1: '12  Elm Street',
          claim_number: 'ZX-9',
        })
        .expect(201)
    ).body;
    expect(first.possible_duplicates).toEqual([]);
    const byPhone = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Ann Lee', customer_phone: '+1 (217) 555-0142' })
        .expect(201)
    ).body;
    expect(byPhone.possible_duplicates).toEqual([
      {
        job_id: first.id,
        job_number: first.job_number,
        title: first.title,
        status: first.status,
        matched: ['phone'],
      },
    ]);
    expect(byPhone.people[0].phone).toBe('+1 (217) 555-0142');
    expect(byPhone.people[0].phone_normalized).toBe('(217) 555-0142');
    expect(first.people[0].phone_normalized).toBe('(217) 555-0142');
    const byAddress = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Tenant', address_line1: '12 elm street ' })
        .expect(201)
    ).body;
    expect(
      byAddress.possible_duplicates.map((d: { job_id: string; matched: string[] }) => [d.job_id, d.matched]),
    ).toEqual([[first.id, ['address']]]);
    const byClaim = (
      await write()
        .post('/api/v1/jobs')
        .send({
          operation_id: opId(),
          customer_name: 'Other',
          claim_number: 'zx-9',
          customer_phone: '217-555-0142',
        })
        .expect(201)
    ).body;
    expect(
      byClaim.possible_duplicates.find((d: { job_id: string }) => d.job_id === first.id).matched,
    ).toEqual(['phone', 'claim_number']);
    // A cancelled job is not a duplicate.
    await write()
      .post(`/api/v1/jobs/${first.id}/cancel`)
      .send({ operation_id: opId(), reason: 'Duplicate' })
      .expect(200);
    const after = (
      await write().post('/api/v1/jobs').send({ operation_id: opId(), claim_number: 'ZX-9' }).expect(201)
    ).body;
    expect(after.possible_duplicates.map((d: { job_id: string }) => d.job_id)).not.toContain(first.id);
  });

  it('matches a claim number with spaces and punctuation aside, and lists at most the 10 newest duplicates', async () => {
    const numbers = [];
    for (let i = 0; i < 12; i++)
      numbers.push(
        (
          await write()
            .post('/api/v1/jobs')
            .send({ operation_id: opId(), customer_name: `Landlord ${i}`, claim_number: 'SF-88-41207' })
            .expect(201)
        ).body.job_number,
      );
    const again = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Landlord again', claim_number: 'sf 88 41207' })
        .expect(201)
    ).body;
    expect(again.possible_duplicates.map((d: { job_number: number }) => d.job_number)).toEqual(
      numbers.slice(2).reverse(),
    );
    expect(
      again.possible_duplicates.every((d: { matched: string[] }) => d.matched.join() === 'claim_number'),
    ).toBe(true);
  });
});

describe('find_jobs reads what people type', () => {
  let mine: TestCompany;
  const find = async (
    q: string,
    extra = '',
  ): Promise<{
    data: { job_number: number; matched_on: string[]; assignees: { name: string }[] }[];
    next_cursor: string | null;
  }> =>
    (
      await as(t, mine.readKey)
        .get(`/api/v1/jobs?q=${encodeURIComponent(q)}${extra}`)
        .expect(200)
    ).body;

  beforeAll(async () => {
    mine = await createCompany(t);
    const jobs = [
      {
        customer_name: 'Ann One',
        customer_phone: '217-555-0142',
        address_line1: '12 Elm St',
        claim_number: 'CLM-1001',
      },
      { customer_name: 'Bob Two', address_line1: '1 Main St' },
      { customer_name: 'Cy Three', title: 'Unit 1B flood', carrier: 'Acme Mutual', adjuster: 'Priya Shah' },
    ];
    for (const job of jobs)
      await as(t, mine.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), ...job })
        .expect(201);
    await as(t, mine.writeKey)
      .post('/api/v1/jobs/1/assignees')
      .send({ operation_id: opId(), teammate: mine.people[1].name })
      .expect(200);
  });

  it('opens job 1 for #1, job 1, job #1 and ranks it first for a bare 1', async () => {
    for (const q of ['#1', 'job 1', 'job #1', 'Job no. 1']) {
      const found = await find(q);
      expect(found.data.map((j) => j.job_number)).toEqual([1]);
      expect(found.data[0].matched_on).toEqual(['number']);
    }
    const bare = await find('1');
    expect(bare.data.map((j) => j.job_number)).toEqual([1, 3, 2]);
    expect(bare.data[0].matched_on).toEqual(['number']);
    expect(bare.data[1].matched_on).toEqual(['title']);
    expect(bare.data[2].matched_on).toEqual(['address']);
    // Paging keeps the ranked job first and shows no job twice.
    const first = await find('1', '&limit=1');
    const second = await find('1', `&limit=1&cursor=${first.next_cursor}`);
    const third = await find('1', `&limit=1&cursor=${second.next_cursor}`);
    expect([...first.data, ...second.data, ...third.data].map((j) => j.job_number)).toEqual([1, 3, 2]);
  });

  it('says what matched and who is assigned', async () => {
    expect((await find('(217) 555 0142')).data.map((j) => [j.job_number, j.matched_on])).toEqual([
      [1, ['phone']],
    ]);
    expect((await find('elm')).data[0].matched_on).toEqual(['address']);
    expect((await find('clm-1001')).data[0].matched_on).toEqual(['claim']);
    expect((await find('priya')).data[0].matched_on).toEqual(['adjuster']);
    expect((await find('acme')).data[0].matched_on).toEqual(['carrier']);
    expect((await find('ann')).data[0]).toMatchObject({
      matched_on: expect.arrayContaining(['customer']),
      assignees: [{ name: mine.people[1].name }],
    });
    expect((await as(t, mine.readKey).get('/api/v1/jobs').expect(200)).body.data[0].matched_on).toEqual([]);
  });
});

describe('list_team, admin_update_team_member', () => {
  it("shows each teammate's responsibilities, set through the admin API", async () => {
    const admin = (req: ReturnType<typeof t.http.patch>) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const dana = co.people[2];
    const changed = (
      await admin(t.http.patch(`/admin/v1/companies/${co.id}/team/${dana.id}`))
        .send({ responsibilities: ['Inspections', ' drying checks ', 'inspections'] })
        .expect(200)
    ).body;
    expect(changed).toMatchObject({
      id: dana.id,
      role: dana.role,
      responsibilities: ['Inspections', 'drying checks'],
    });
    const team = (await read().get('/api/v1/team').expect(200)).body.data as {
      id: string;
      responsibilities: string[];
      email?: string;
    }[];
    expect(team.find((p) => p.id === dana.id)).toEqual({
      id: dana.id,
      name: dana.name,
      role: dana.role,
      responsibilities: ['Inspections', 'drying checks'],
    });
    expect(team.find((p) => p.id === co.people[0].id)!.responsibilities).toEqual([]);
    const added = (
      await admin(t.http.post(`/admin/v1/companies/${co.id}/team`))
        .send({ name: 'Ivy Inspector', role: 'Estimator', responsibilities: ['estimates'] })
        .expect(201)
    ).body;
    expect(added.responsibilities).toEqual(['estimates']);
    const other = await createCompany(t);
    await admin(t.http.patch(`/admin/v1/companies/${other.id}/team/${dana.id}`))
      .send({ role: 'Owner' })
      .expect(404);
    await admin(t.http.patch(`/admin/v1/companies/${co.id}/team/${dana.id}`))
      .send({})
      .expect(400);
  });
});

describe('search_standards, get_standard, search_price_list: find what people type', () => {
  it('ranks the wet-drywall passage first for a drying question, filters by publisher and reads a passage whole', async () => {
    const found = (
      await read()
        .get(`/api/v1/standards/search?q=${encodeURIComponent('drying drywall after a category 2 loss')}`)
        .expect(200)
    ).body.data;
    expect(found[0].id).toBe('epa-wet-drywall');
    for (const passage of found) expect(passage.excerpt).toMatch(/[.!?]\*{0,2}["”)]?$/);
    expect(found[0].excerpt).toContain('**');
    const osha = (await read().get('/api/v1/standards/search?q=mold&publisher=OSHA&limit=20').expect(200))
      .body.data;
    expect(osha.length).toBeGreaterThan(0);
    expect(new Set(osha.map((p: { source: { publisher: string } }) => p.source.publisher))).toEqual(
      new Set(['OSHA']),
    );
    await read().get('/api/v1/standards/search?q=mold&publisher=WHO').expect(400);
    const whole = (await read().get('/api/v1/standards/passages/epa-wet-drywall').expect(200)).body;
    expect(whole).toMatchObject({ id: 'epa-wet-drywall', source: { publisher: 'EPA' } });
    expect(whole.text.length).toBeGreaterThan(found[0].excerpt.replace(/\*\*/g, '').length);
    expect(whole.topics).toContain('drywall');
    await read().get('/api/v1/standards/passages/no-such-passage').expect(404);
  });

  it('ranks water extraction above carpet cleaning, and finds air movers near DRY-AIRMOVER', async () => {
    const items = (await read().get('/api/v1/price-list?q=water%20extraction&limit=10').expect(200)).body
      .data as { code: string; description: string }[];
    expect(items[0].description.toLowerCase().startsWith('water extraction')).toBe(true);
    const carpetCleaning = items.findIndex((item) => item.code === 'CLN-CP');
    const lastExtraction = items
      .map((item) => item.description.toLowerCase().startsWith('water extraction'))
      .lastIndexOf(true);
    expect(carpetCleaning === -1 || carpetCleaning > lastExtraction).toBe(true);
    const near = (await read().get('/api/v1/price-list/items?codes=DRY-AIRMOVER').expect(200)).body
      .not_found[0].near_matches as { code: string }[];
    expect(near.map((m) => m.code)).toEqual(expect.arrayContaining(['DRY-AM-AXL', 'DRY-AM-HS']));
    expect(near.every((m) => m.code.startsWith('DRY-AM'))).toBe(true);
  });
});

describe('over MCP', () => {
  it('undo previews and reports its effect', async () => {
    const job = await newJob();
    await write()
      .post(`/api/v1/jobs/${job.id}/notes`)
      .send({ operation_id: opId(), text: 'Hose behind the washer burst at 7 am' })
      .expect(201);
    const client = await connectMcp(t, co.writeKey);
    try {
      const preview = (await client.callTool({
        name: 'undo_my_last_action',
        arguments: { operation_id: opId(), preview: true },
      })) as CallToolResult;
      expect(preview.structuredContent).toMatchObject({
        preview: true,
        undone: {
          tool: 'add_note',
          effect: `deleted note 'Hose behind the washer burst at 7 am' on #${job.job_number}`,
        },
      });
      const done = (await client.callTool({
        name: 'undo_my_last_action',
        arguments: { operation_id: opId() },
      })) as CallToolResult;
      expect(done.structuredContent).toMatchObject({ preview: false, undone: { tool: 'add_note' } });
      const context = (await client.callTool({ name: 'get_context', arguments: {} })) as CallToolResult;
      const today = (context.structuredContent as { company: { today: string } }).company.today;
      expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const changes = (await client.callTool({
        name: 'list_changes',
        arguments: { since: today, limit: 100 },
      })) as CallToolResult;
      expect(
        (changes.structuredContent as { data: { action: string }[] }).data.map((e) => e.action),
      ).toContain('action.undone');
      const found = (await client.callTool({
        name: 'find_jobs',
        arguments: { q: `job ${job.job_number}` },
      })) as CallToolResult;
      expect(found.structuredContent).toMatchObject({
        data: [{ job_number: job.job_number, matched_on: ['number'] }],
      });
      const passages = (await client.callTool({
        name: 'search_standards',
        arguments: { q: 'carbon monoxide', publisher: 'OSHA' },
      })) as CallToolResult;
      const first = (passages.structuredContent as { data: { id: string; source: { publisher: string } }[] })
        .data[0];
      expect(first.source.publisher).toBe('OSHA');
      const whole = (await client.callTool({
        name: 'get_standard',
        arguments: { passage_id: first.id },
      })) as CallToolResult;
      expect(whole.structuredContent).toMatchObject({ id: first.id, source: { publisher: 'OSHA' } });
      const created = (await client.callTool({
        name: 'create_job',
        arguments: {
          operation_id: opId(),
          customer_name: 'Maria Delgado',
          customer_phone: '217-555-0199',
          water_category: 2,
          date_of_loss: today,
        },
      })) as CallToolResult;
      expect(created.structuredContent).toMatchObject({
        water_category: 2,
        date_of_loss: today,
        possible_duplicates: [],
      });
    } finally {
      await client.close();
    }
  });
});
