/**
 * check_claim_readiness as a desk review (#42): the worked example of the issue (a kitchen still
 * wet on the last day, dining air movers pulled wet, antimicrobial on a category 1 loss without a
 * note, a flood cut billed on drywall read drying in place, a day without outside or unaffected
 * air, a dehumidifier without an exhaust reading), each finding with its exact message, then each
 * fixed through the tool it names; a material no longer read with no removal billed, and what
 * counts as a note saying why, over MCP.
 */
import type { components } from '../../sdk/src/schema';
import {
  as,
  companyDate,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { callTool, connectMcp } from '../support/mcp';
import { jpegWith } from '../support/photo-files';

type Schemas = components['schemas'];
type Readiness = Schemas['ClaimReadiness'];

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
});
afterAll(() => t.close());

const write = () => as(t, co.writeKey);
const readinessOf = async (jobId: string): Promise<Readiness> =>
  (await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/claim-readiness`).expect(200)).body;
const post = (path: string, body: Record<string, unknown>) =>
  write()
    .post(path)
    .send({ operation_id: opId(), ...body });
/** Day 4 of the logs is today. */
const day = (n: number) => companyDate(co, n - 4);
const air = (n: number, location: 'outside' | 'unaffected') => ({
  day: n,
  location,
  readings: [
    { metric: 'temp_f', value: 68 },
    { metric: 'rh_pct', value: 48 },
  ],
});
const exhaust = (n: number, area: string) => ({
  day: n,
  area,
  location: 'dehumidifier_exhaust',
  readings: [
    { metric: 'temp_f', value: 85 },
    { metric: 'rh_pct', value: 25 },
  ],
});

let photosMade = 0;
async function addPhotos(jobId: string, room: string, count: number): Promise<void> {
  const req = t.http
    .post(`/api/v1/jobs/${jobId}/photos`)
    .set('Authorization', `Bearer ${co.writeKey}`)
    .field('meta', JSON.stringify({ operation_id: opId(), room }));
  for (let i = 0; i < count; i++)
    req.attach('photo', await jpegWith({ width: 320 + photosMade++, height: 240 }), {
      filename: `${room}-${i}.jpg`,
      contentType: 'image/jpeg',
    });
  await req.expect(201);
}

/** The estimate's lines by code and room (`CLN-ANTI Kitchen`). */
const lineIds = async (estimateId: string): Promise<Record<string, string>> => {
  const estimate = (await write().get(`/api/v1/estimates/${estimateId}`).expect(200))
    .body as Schemas['Estimate'];
  return Object.fromEntries(
    estimate.rooms.flatMap((room) =>
      (room.lines ?? []).map((line) => [`${line.code} ${room.name}`, line.id]),
    ),
  );
};

/** The job: a category 1 kitchen and dining loss, read on days 1–3 of a 4-day plan (today is day 4). */
async function workedExample() {
  const job = (
    await post('/api/v1/jobs', {
      customer_name: 'Dana Desk',
      date_of_loss: day(1),
      water_category: 1,
    }).expect(201)
  ).body;
  const base = `/api/v1/jobs/${job.id}/drying-log`;
  const log = (
    await post(base, {
      start_date: day(1),
      planned_days: 4,
      rooms: [{ name: 'Kitchen' }, { name: 'Dining' }],
    }).expect(201)
  ).body.log;
  const kitchen = (n: number, drywall: number, wood: number) => ({
    day: n,
    area: 'Kitchen',
    readings: [
      { metric: 'temp_f', value: 74 },
      { metric: 'rh_pct', value: 50 },
      { metric: 'drywall', value: drywall, point: 'behind the sink' },
      { metric: 'wood', value: wood, point: 'sink base' },
    ],
  });
  const dining = (n: number, drywall: number) => ({
    day: n,
    area: 'Dining',
    readings: [{ metric: 'drywall', value: drywall, point: 'east wall' }],
  });
  await post(`${base}/readings`, {
    rows: [
      {
        day: 1,
        area: 'Kitchen',
        readings: [
          { metric: 'drywall', value: 10, reference: true, point: 'pantry' },
          { metric: 'wood', value: 12, reference: true, point: 'pantry' },
        ],
      },
      { day: 1, area: 'Dining', readings: [{ metric: 'drywall', value: 10, reference: true }] },
      kitchen(1, 30, 28),
      dining(1, 20),
      kitchen(2, 18, 20),
      dining(2, 11),
      kitchen(3, 12, 15),
      dining(3, 10),
      air(1, 'outside'),
      air(1, 'unaffected'),
      air(2, 'outside'),
      air(2, 'unaffected'),
    ],
  }).expect(201);
  await post(`${base}/equipment`, {
    area: 'Kitchen',
    day: 1,
    units: [
      { kind: 'air_mover', count: 2 },
      { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 70 },
    ],
  }).expect(201);
  const diningUnits = (
    await post(`${base}/equipment`, {
      area: 'Dining',
      day: 1,
      units: [{ kind: 'air_mover', count: 2 }],
    }).expect(201)
  ).body.placed as { id: string }[];
  await post(`${base}/equipment/remove`, { day: 2, equipment_ids: diningUnits.map((u) => u.id) }).expect(200);
  await post(`/api/v1/estimates/${log.estimate_id}/line-items`, {
    line_items: [
      { code: 'DRY-AM-STD', units_per_day: 2, room: 'Kitchen' },
      { code: 'DRY-DH-LGR', units_per_day: 1, room: 'Kitchen' },
      { code: 'DRY-AM-STD', quantity: 2, room: 'Dining' },
      { code: 'CLN-ANTI', quantity: 120, room: 'Kitchen' },
      { code: 'DEM-DW-2FT', quantity: 8, room: 'Kitchen' },
    ],
  }).expect(200);
  await addPhotos(job.id, 'Kitchen', 2);
  await addPhotos(job.id, 'Dining', 2);
  return {
    job,
    base,
    estimateId: log.estimate_id as string,
    lines: await lineIds(log.estimate_id),
    diningUnits,
  };
}

describe('check_claim_readiness as a desk review', () => {
  it('finds what a desk adjuster pushes back on in the worked example, and nothing once each is fixed', async () => {
    const { job, base, estimateId, lines, diningUnits } = await workedExample();
    const before = await readinessOf(job.id);
    expect(before).toMatchObject({ ready: false, counts: { high: 4, medium: 2, low: 0 } });
    expect(before.findings).toEqual([
      {
        check: 'not_dry_on_last_day',
        severity: 'high',
        rule: null,
        profile: null,
        record: { type: 'area', id: expect.stringMatching(/^area_/), name: 'Kitchen', day: 3, date: day(3) },
        message: `Kitchen drywall 'behind the sink' read 12 against a goal of 10 and wood 'sink base' read 15 against a goal of 12 on day 3 (${day(3)}), the last day monitored.`,
        fix: { tool: 'add_drying_readings', how: expect.any(String) },
      },
      {
        check: 'equipment_removed_while_wet',
        severity: 'high',
        rule: null,
        profile: null,
        record: { type: 'equipment', id: diningUnits[0].id, name: 'Dining', day: 2, date: day(2) },
        message: `2 air movers were removed from Dining on day 2 (${day(2)}) while its drywall 'east wall' read 11 against a goal of 10.`,
        fix: { tool: 'add_drying_note', how: expect.stringContaining('a note on Dining and day 2') },
      },
      {
        check: 'removal_contradicts_log',
        severity: 'high',
        rule: null,
        profile: null,
        record: { type: 'line', id: lines['DEM-DW-2FT Kitchen'], name: 'Kitchen', day: 3, date: day(3) },
        message: `DEM-DW-2FT (Flood cut drywall 2 feet above the floor and remove the lower section) is billed in Kitchen, but its drywall 'behind the sink' was read drying in place on 3 days, day 1 to day 3 (${day(1)} to ${day(3)}), from 30 to 12 against a goal of 10.`,
        fix: { tool: 'remove_line_item', how: expect.any(String) },
      },
      {
        check: 'category_work_without_note',
        severity: 'high',
        rule: null,
        profile: null,
        record: { type: 'line', id: lines['CLN-ANTI Kitchen'], name: 'Kitchen', day: null, date: null },
        message:
          'CLN-ANTI (Apply antimicrobial to affected surfaces) is billed in Kitchen on a category 1 loss with no note saying why.',
        fix: { tool: 'update_line_item', how: expect.any(String) },
      },
      {
        check: 'day_without_outside_or_unaffected',
        severity: 'medium',
        rule: null,
        profile: null,
        record: { type: 'day', id: null, name: null, day: 3, date: day(3) },
        message: `Day 3 (${day(3)}) has readings but no outside or unaffected air reading to compare the drying air with.`,
        fix: { tool: 'add_drying_readings', how: expect.stringContaining('outside and unaffected') },
      },
      {
        check: 'dehumidifier_without_exhaust',
        severity: 'medium',
        rule: null,
        profile: null,
        record: { type: 'area', id: expect.stringMatching(/^area_/), name: 'Kitchen', day: 1, date: day(1) },
        message: `Kitchen had a dehumidifier on site on days 1, 2 and 3 (${day(1)} to ${day(3)}) with no exhaust reading, so what it removed (its grain depression) is not shown.`,
        fix: { tool: 'add_drying_readings', how: expect.stringContaining('dehumidifier_exhaust') },
      },
    ]);

    // The fixes, each through the tool its finding names. Today (day 4) the kitchen reads dry,
    // with the day's outside and unaffected air and the dehumidifier's exhaust of every day.
    await post(`${base}/readings`, {
      rows: [
        {
          day: 4,
          area: 'Kitchen',
          readings: [
            { metric: 'drywall', value: 10, point: 'behind the sink' },
            { metric: 'wood', value: 12, point: 'sink base' },
          ],
        },
        air(3, 'outside'),
        air(3, 'unaffected'),
        air(4, 'outside'),
        air(4, 'unaffected'),
        ...[1, 2, 3, 4].map((n) => exhaust(n, 'Kitchen')),
      ],
    }).expect(201);
    await post(`${base}/notes`, {
      area: 'Dining',
      day: 2,
      text: 'Homeowner needed the dining room back for a family dinner; the wall was at 11 and read dry on day 3.',
    }).expect(201);
    await write()
      .delete(`/api/v1/estimates/${estimateId}/line-items/${lines['DEM-DW-2FT Kitchen']}`)
      .query({ operation_id: opId() })
      .expect(200);
    await write()
      .patch(`/api/v1/estimates/${estimateId}/line-items/${lines['CLN-ANTI Kitchen']}`)
      .send({ operation_id: opId(), note: 'Water sat two days under the sink base before we were called.' })
      .expect(200);
    const after = await readinessOf(job.id);
    expect(after).toEqual({
      job: { id: job.id, job_number: job.job_number },
      ready: true,
      counts: { high: 0, medium: 0, low: 0 },
      findings: [],
    });
  });

  it('names a removable material no longer read while wet with no removal billed, and category work on a clean-water chamber until a note says why (over MCP)', async () => {
    const job = (await post('/api/v1/jobs', { customer_name: 'Pat Pad', date_of_loss: day(1) }).expect(201))
      .body;
    const base = `/api/v1/jobs/${job.id}/drying-log`;
    const log = (
      await post(base, { start_date: day(1), planned_days: 4, rooms: [{ name: 'Bedroom' }] }).expect(201)
    ).body.log;
    await post(`${base}/readings`, {
      rows: [
        {
          day: 1,
          area: 'Bedroom',
          readings: [
            { metric: 'carpet', value: 40, point: 'center' },
            { metric: 'pad', value: 50, point: 'center' },
            { metric: 'drywall', value: 25, point: 'closet' },
          ],
        },
        // Day 2 on, only the wall is read: the carpet and pad are no longer there.
        { day: 2, area: 'Bedroom', readings: [{ metric: 'drywall', value: 14, point: 'closet' }] },
        { day: 3, area: 'Bedroom', readings: [{ metric: 'drywall', value: 12, point: 'closet' }] },
        // Day 3's outside air only: the unaffected air is still missing.
        air(3, 'outside'),
        ...[1, 2].flatMap((n) => [air(n, 'outside'), air(n, 'unaffected')]),
      ],
    }).expect(201);
    await write()
      .put(`${base}/chambers`)
      .send({
        operation_id: opId(),
        chambers: [{ name: 'Upstairs', category: 1, areas: [{ name: 'Bedroom' }] }],
      })
      .expect(200);
    const desk = (answer: Readiness) =>
      answer.findings
        .filter((f) => !['no_unaffected_reference', 'room_with_few_photos'].includes(f.check))
        .map((f) => [f.check, f.record.type, f.record.name, f.record.day, f.message]);

    expect(desk(await readinessOf(job.id))).toEqual([
      [
        'removal_contradicts_log',
        'area',
        'Bedroom',
        1,
        `Bedroom carpet 'center' was last read on day 1 (${day(1)}) at 40 against a goal of 17 and not read again, though Bedroom was read to day 3; no removal of carpet is billed in Bedroom.`,
      ],
      [
        'removal_contradicts_log',
        'area',
        'Bedroom',
        1,
        `Bedroom pad 'center' was last read on day 1 (${day(1)}) at 50 against a goal of 17 and not read again, though Bedroom was read to day 3; no removal of pad is billed in Bedroom.`,
      ],
      [
        'day_without_outside_or_unaffected',
        'day',
        null,
        3,
        `Day 3 (${day(3)}) has readings but no unaffected air reading to compare the drying air with.`,
      ],
    ]);

    // Billing the removal of both (the category 3 line) answers the log, but is category 3 work
    // on a chamber recorded as category 1.
    await post(`/api/v1/estimates/${log.estimate_id}/line-items`, {
      line_items: [{ code: 'DEM-CP-C3', quantity: 140, room: 'Bedroom' }],
    }).expect(200);
    await post(`${base}/readings`, { rows: [air(3, 'unaffected')] }).expect(201);
    const client = await connectMcp(t, co.readKey);
    try {
      const viaMcp = (await callTool(client, 'check_claim_readiness', { job_id: job.id }))
        .structuredContent as Readiness;
      expect(desk(viaMcp)).toEqual([
        [
          'category_work_without_note',
          'line',
          'Bedroom',
          null,
          'DEM-CP-C3 (Remove and bag carpet and pad contaminated by category 3 water) is billed in Bedroom on a category 1 loss with no note saying why.',
        ],
      ]);
      expect(viaMcp.ready).toBe(false);

      // A note that does not say why is not enough; one that speaks of the water's category is.
      await post(`${base}/notes`, { text: 'Carpet and pad pulled and bagged.' }).expect(201);
      expect(desk(await readinessOf(job.id)).map((f) => f[0])).toEqual(['category_work_without_note']);
      await post(`/api/v1/jobs/${job.id}/notes`, {
        text: 'The toilet overflow reached the carpet: Category 3 water under the bed.',
      }).expect(201);
      const after = (await callTool(client, 'check_claim_readiness', { job_id: job.job_number }))
        .structuredContent as Readiness;
      expect(desk(after)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('asks nothing of drying equipment removed once its area read dry (nor of an air scrubber), of a dehumidifier with its exhaust read in its chamber, or of category work on a category 2 loss', async () => {
    const job = (
      await post('/api/v1/jobs', {
        customer_name: 'Clean Sheet',
        date_of_loss: day(1),
        water_category: 2,
      }).expect(201)
    ).body;
    const base = `/api/v1/jobs/${job.id}/drying-log`;
    const log = (
      await post(base, {
        start_date: day(1),
        planned_days: 2,
        rooms: [{ name: 'Den' }, { name: 'Hall' }],
      }).expect(201)
    ).body.log;
    await post(`${base}/readings`, {
      rows: [1, 2, 3].flatMap((n) => [
        { day: n, area: 'Den', readings: [{ metric: 'drywall', value: n === 1 ? 20 : 9 }] },
        { day: n, area: 'Hall', readings: [{ metric: 'drywall', value: 9 }] },
        { day: n, location: 'unaffected', readings: [{ metric: 'drywall', value: 10 }] },
        air(n, 'outside'),
        air(n, 'unaffected'),
        exhaust(n, 'Hall'),
      ]),
    }).expect(201);
    await write()
      .put(`${base}/chambers`)
      .send({
        operation_id: opId(),
        chambers: [{ name: 'Main', category: 2, areas: [{ name: 'Den' }, { name: 'Hall' }] }],
      })
      .expect(200);
    const units = (
      await post(`${base}/equipment`, {
        area: 'Den',
        day: 1,
        units: [
          { kind: 'air_scrubber' },
          { kind: 'air_mover' },
          { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 70 },
        ],
      }).expect(201)
    ).body.placed as { id: string }[];
    // The air scrubber leaves on day 1, while Den is wet: it cleans the air, it does not dry.
    await post(`${base}/equipment/remove`, { day: 1, equipment_ids: [units[0].id] }).expect(200);
    await post(`${base}/equipment/remove`, { day: 2, equipment_ids: units.slice(1).map((u) => u.id) }).expect(
      200,
    );
    await post(`/api/v1/estimates/${log.estimate_id}/line-items`, {
      line_items: [{ code: 'CLN-ANTI', quantity: 50, room: 'Den' }],
    }).expect(200);
    // Den read wet on day 1 and dry from day 2, when its units came out; its dehumidifier's
    // exhaust was read in Hall, of the same chamber; the antimicrobial is on grey water. What is
    // left is the older checks': units not billed and rooms without photos.
    expect((await readinessOf(job.id)).findings.map((f) => f.check)).toEqual([
      'equipment_not_billed',
      'equipment_not_billed',
      'equipment_not_billed',
      'room_with_few_photos',
      'room_with_few_photos',
    ]);
  });
});
