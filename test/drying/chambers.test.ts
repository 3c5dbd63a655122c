/**
 * Drying chambers over HTTP and MCP: areas grouped with category and class, the class computed
 * from the wet share of the surfaces (room sizes from the estimate), the S500 plan against the
 * equipment on site, flags and notes, replacing and removing chambers, the feed, undo, replays
 * and conflicts, read keys, other companies and bad bodies.
 */
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
import { callTool, connectMcp } from '../support/mcp';

type Schemas = components['schemas'];
type ChambersSet = Schemas['ChambersSet'];
type DryingLog = Schemas['DryingLog'];
type Entry = Schemas['ChangeEntry'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
  other = await createCompany(t, { credits: 5 });
});
afterAll(() => t.close());

const write = (company = co) => as(t, company.writeKey);
const read = (company = co) => as(t, company.readKey);

/** A job whose estimate sizes the Kitchen (12 × 10 × 8 ft) and the Hall (10 × 4 × 8 ft), and whose log dries both and a Porch of unknown size. */
async function sizedJob(company = co, startDate?: string): Promise<{ id: string; job_number: number }> {
  const job = (
    await write(company)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Chamber Chen' })
      .expect(201)
  ).body;
  const rooms = [
    { name: 'Kitchen', length: 12, width: 10, height: 8 },
    { name: 'Hall', length: 10, width: 4, height: 8 },
    { name: 'Porch' },
  ];
  await write(company)
    .post(`/api/v1/jobs/${job.id}/estimates`)
    .send({
      operation_id: opId(),
      label: 'Mitigation',
      rooms,
      line_items: [
        { description: 'Extraction', room: 'Kitchen', unit: 'SF', quantity: 120, unit_price_cents: 100 },
      ],
    })
    .expect(201);
  await write(company)
    .post(`/api/v1/jobs/${job.id}/drying-log`)
    .send({
      operation_id: opId(),
      start_date: startDate,
      rooms: [{ name: 'Kitchen' }, { name: 'Hall' }, { name: 'Porch' }],
    })
    .expect(201);
  return job;
}

const chambersOf = (jobId: string) => `/api/v1/jobs/${jobId}/drying-log/chambers`;
const setChambers = (jobId: string, chambers: unknown[], company = co) =>
  write(company).put(chambersOf(jobId)).send({ operation_id: opId(), chambers });
const MAIN = {
  name: 'Main floor',
  category: 2,
  areas: [
    { name: 'kitchen', wet_floor_sqft: 120, wet_wall_sqft: 40 },
    { name: 'Hall', wet_floor_sqft: 40 },
  ],
};

describe('set_drying_chambers: drying chambers', () => {
  it('computes the class from the wet share and an S500 plan, and compares it with the equipment on site', async () => {
    const job = await sizedJob();
    const set = (await setChambers(job.id, [MAIN]).expect(200)).body as ChambersSet;
    // Surfaces: Kitchen 120 + 120 + 352, Hall 40 + 40 + 224 = 896 sq ft, 200 of them wet: 22.3%.
    expect(set.chambers[0]).toMatchObject({
      name: 'Main floor',
      category: 2,
      class: 2,
      class_source: 'computed',
      wet_share_pct: 22.3,
      cubic_ft: 1280,
      note: null,
      // Air movers: Kitchen 1 + 120/70..50 (2..3) + 40/150..100 (1..1), Hall 1 + 40/70..50 (1..1).
      // Dehumidification: 1,280 cu ft / 50 (LGR, class 2) and / 40 (conventional).
      plan: { air_movers: { min: 6, max: 7 }, dehumidifier_pints: { lgr: 26, conventional: 32 } },
      placed: { air_movers: 0, dehumidifier_pints: 0 },
      air_movers_vs_plan: 'under',
      dehumidification_vs_plan: 'under',
    });
    expect(set.chambers[0].areas.map((a) => [a.name, a.size_known])).toEqual([
      ['Kitchen', true],
      ['Hall', true],
    ]);
    expect(set.chambers[0].flags).toHaveLength(2);

    const equipment = `/api/v1/jobs/${job.id}/drying-log/equipment`;
    await write()
      .post(equipment)
      .send({ operation_id: opId(), area: 'Kitchen', units: [{ kind: 'air_mover', count: 6 }] })
      .expect(201);
    await write()
      .post(equipment)
      .send({
        operation_id: opId(),
        area: 'Hall',
        units: [
          { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 70 },
          { kind: 'dehumidifier', dehumidifier_type: 'desiccant' },
        ],
      })
      .expect(201);
    await write()
      .post(equipment)
      .send({ operation_id: opId(), area: 'Porch', units: [{ kind: 'air_mover', count: 2 }] })
      .expect(201);
    const log = (await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body as DryingLog;
    // The porch is in no chamber: its air movers are not the main floor's; desiccants are sized by airflow.
    expect(log.chambers[0]).toMatchObject({
      placed: { air_movers: 6, dehumidifier_pints: 70 },
      air_movers_vs_plan: 'within',
      dehumidification_vs_plan: 'within',
      flags: [],
    });

    // Too many air movers, with a note saying why: not flagged. Class 4 is given only, and has no conventional sizing.
    await write()
      .post(equipment)
      .send({ operation_id: opId(), area: 'Hall', units: [{ kind: 'air_mover', count: 3 }] })
      .expect(201);
    expect(
      (await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body.chambers[0],
    ).toMatchObject({
      air_movers_vs_plan: 'over',
      flags: [expect.stringContaining('9 air movers on site; the S500 plan calls for 6–7')],
    });
    const noted = (
      await setChambers(job.id, [
        { ...MAIN, class: 4, note: 'Hardwood floor: extra air movers for the dense material' },
      ]).expect(200)
    ).body as ChambersSet;
    expect(noted.chambers[0]).toMatchObject({
      class: 4,
      class_source: 'given',
      plan: { dehumidifier_pints: { lgr: 26, conventional: null } },
      air_movers_vs_plan: 'over',
      flags: [],
    });
  });

  it('takes a drying note on an area of the chamber, for a day since its count changed, as the reason a chamber note is', async () => {
    const job = await sizedJob(co, companyDate(co, -2)); // days 1, 2 and 3 (today)
    await setChambers(job.id, [MAIN]).expect(200);
    const log = `/api/v1/jobs/${job.id}/drying-log`;
    const post = (p: string, body: Record<string, unknown>) =>
      write()
        .post(`${log}${p}`)
        .send({ operation_id: opId(), ...body });
    await post('/equipment', { day: 1, area: 'Kitchen', units: [{ kind: 'air_mover', count: 6 }] }).expect(
      201,
    );
    await post('/equipment', {
      day: 1,
      area: 'Hall',
      units: [{ kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 70 }],
    }).expect(201);
    const extra = (
      await post('/equipment', { day: 2, area: 'Hall', units: [{ kind: 'air_mover', count: 3 }] }).expect(201)
    ).body.placed as { id: string }[];
    const flagsNow = async () => ((await read().get(log).expect(200)).body as DryingLog).chambers[0].flags;
    const readinessChecks = async () =>
      (
        (await read().get(`/api/v1/jobs/${job.id}/claim-readiness`).expect(200)).body.findings as {
          check: string;
          fix: { tool: string; how: string };
        }[]
      ).filter((f) => f.check === 'equipment_outside_plan');
    expect(await flagsNow()).toEqual([expect.stringContaining('9 air movers on site')]);
    expect((await readinessChecks())[0].fix.how).toContain('add_drying_note');

    // Notes that do not explain this count: another area's, the whole log's, a day before the count.
    await post('/notes', { day: 3, area: 'Porch', text: 'Porch fans off the plan' }).expect(201);
    await post('/notes', { day: 3, text: 'Checked every room' }).expect(201);
    await post('/notes', { day: 1, area: 'Kitchen', text: 'Six fans for the kitchen floor' }).expect(201);
    expect(await flagsNow()).toHaveLength(1);
    expect(await readinessChecks()).toHaveLength(1);

    // A note on the Hall for day 2, when the three fans came: the count is explained.
    await post('/notes', { day: 2, area: 'hall', text: 'Extra fans: hardwood under the hall runner' }).expect(
      201,
    );
    expect(await flagsNow()).toEqual([]);
    expect(await readinessChecks()).toEqual([]);

    // The count changes on day 3 (8 fans, still over): the day-2 note explained the old count.
    await post('/equipment/remove', { day: 3, equipment_ids: [extra[0].id] }).expect(200);
    expect(await flagsNow()).toEqual([expect.stringContaining('8 air movers on site')]);
    await post('/notes', {
      day: 3,
      area: 'Kitchen',
      text: 'One hall fan pulled; the rest stay for the hardwood',
    }).expect(201);
    expect(await flagsNow()).toEqual([]);
  });

  it("shows each chamber's air beside the building's outside and unaffected air, with GPP and dew point", async () => {
    const job = await sizedJob();
    await setChambers(job.id, [MAIN, { name: 'Porch', category: 1, areas: [{ name: 'Porch' }] }]).expect(200);
    const air = (temp: number, rh: number) => [
      { metric: 'temp_f', value: temp },
      { metric: 'rh_pct', value: rh },
    ];
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
      .send({
        operation_id: opId(),
        day: 1,
        rows: [
          { area: 'Kitchen', readings: air(75, 60) },
          { area: 'Hall', readings: air(72, 55) },
          { location: 'outside', readings: air(50, 90) },
          { location: 'unaffected', readings: air(70, 40) },
        ],
      })
      .expect(201);
    const log = (await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(200))
      .body as components['schemas']['DryingLog'];
    const pick = (c: components['schemas']['AirCondition'] | null) =>
      c && [c.area, c.location, c.temp_f, c.rh_pct, c.gpp !== null && c.gpp > 0, c.dew_point_f !== null];
    expect(
      log.chamber_air.map((c) => [c.chamber, c.areas.map(pick), pick(c.outside), pick(c.unaffected)]),
    ).toEqual([
      [
        'Main floor',
        [
          ['Kitchen', 'affected', 75, 60, true, true],
          ['Hall', 'affected', 72, 55, true, true],
        ],
        [null, 'outside', 50, 90, true, true],
        [null, 'unaffected', 70, 40, true, true],
      ],
      ['Porch', [], [null, 'outside', 50, 90, true, true], [null, 'unaffected', 70, 40, true, true]],
    ]);
    // The same figures as the areas' own.
    expect(log.chamber_air[0].areas[0]).toEqual(log.areas.find((a) => a.name === 'Kitchen')!.air);
  });

  it('leaves class and volume unknown without sizes, replaces and removes chambers, and undo puts them back', async () => {
    const job = await sizedJob();
    const first = (
      await setChambers(job.id, [
        { name: 'Outside', category: 3, areas: [{ name: 'Porch', wet_floor_sqft: 30 }] },
      ]).expect(200)
    ).body as ChambersSet;
    expect(first.chambers[0]).toMatchObject({
      class: null,
      class_source: null,
      wet_share_pct: null,
      cubic_ft: null,
      plan: { air_movers: { min: 2, max: 2 }, dehumidifier_pints: null },
      dehumidification_vs_plan: null,
      areas: [{ name: 'Porch', size_known: false }],
    });
    // Set again: Outside is gone, Main floor is new; the Porch leaves its chamber.
    const second = (await setChambers(job.id, [MAIN]).expect(200)).body as ChambersSet;
    expect(second.chambers.map((c) => c.name)).toEqual(['Main floor']);
    const undone = (await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200)).body;
    expect(undone.undone).toMatchObject({ tool: 'set_drying_chambers' });
    const back = (await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body as DryingLog;
    expect(back.chambers.map((c) => [c.id, c.name, c.areas.map((a) => [a.name, a.wet_floor_sqft])])).toEqual([
      [first.chambers[0].id, 'Outside', [['Porch', 30]]],
    ]);
    // An empty list removes them; asking for the same again changes nothing and writes no entry.
    expect((await setChambers(job.id, []).expect(200)).body.chambers).toEqual([]);
    await setChambers(job.id, []).expect(200);
    await feedSettled(t);
    const entries = (
      (await read().get('/api/v1/changes?kind=schedule&limit=100').expect(200)).body.data as Entry[]
    ).filter((e) => e.job?.job_number === job.job_number && e.action === 'drying.chambers_set');
    expect(entries.map((e) => e.data)).toEqual([
      {
        action: 'drying.chambers_set',
        log_id: first.log_id,
        chambers: [{ name: 'Outside', category: 3, class: null, areas: ['Porch'] }],
      },
      {
        action: 'drying.chambers_set',
        log_id: first.log_id,
        chambers: [{ name: 'Main floor', category: 2, class: 2, areas: ['Kitchen', 'Hall'] }],
      },
      { action: 'drying.chambers_set', log_id: first.log_id, chambers: [] },
    ]);
  });

  it("refuses bad bodies, unknown areas, read keys, other companies' jobs; replays and conflicts", async () => {
    const job = await sizedJob();
    for (const chambers of [
      [{ ...MAIN, category: 4 }],
      [{ ...MAIN, class: 0 }],
      [{ ...MAIN, areas: [] }],
      [{ ...MAIN, areas: [{ name: 'Kitchen', wet_floor_sqft: -1 }] }],
      [MAIN, { name: 'main FLOOR', category: 1, areas: [{ name: 'Porch' }] }],
      [MAIN, { name: 'Second', category: 1, areas: [{ name: 'HALL' }] }],
      [{ ...MAIN, colour: 'blue' }],
    ]) {
      expect((await setChambers(job.id, chambers).expect(400)).body.code).toBe('invalid_request');
    }
    expect(
      (await setChambers(job.id, [{ name: 'X', category: 1, areas: [{ name: 'Attic' }] }]).expect(422)).body,
    ).toMatchObject({ code: 'unknown_area', valid_values: ['Kitchen', 'Hall', 'Porch'] });
    expect(
      (
        await read()
          .put(chambersOf(job.id))
          .send({ operation_id: opId(), chambers: [MAIN] })
          .expect(403)
      ).body.code,
    ).toBe('write_key_required');
    const theirs = await sizedJob(other);
    await setChambers(theirs.id, [MAIN]).expect(404);
    const bare = (
      await write().post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'No Log' }).expect(201)
    ).body;
    await setChambers(bare.id, [MAIN]).expect(404);
    expect((await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body.chambers).toEqual([]);

    const body = { operation_id: opId(), chambers: [MAIN] };
    const first = await write().put(chambersOf(job.id)).send(body).expect(200);
    const again = await write().put(chambersOf(job.id)).send(body).expect(200);
    expect([again.headers['idempotent-replayed'], again.body]).toEqual(['true', first.body]);
    expect(
      (
        await write()
          .put(chambersOf(job.id))
          .send({ ...body, chambers: [] })
          .expect(409)
      ).body.code,
    ).toBe('operation_id_conflict');
  });

  it('works over MCP', async () => {
    const job = await sizedJob();
    const client = await connectMcp(t, co.writeKey);
    try {
      const result = await callTool(client, 'set_drying_chambers', {
        job_id: job.id,
        operation_id: opId(),
        chambers: [MAIN],
      });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as ChambersSet).chambers[0]).toMatchObject({
        class: 2,
        plan: { air_movers: { min: 6, max: 7 } },
      });
    } finally {
      await client.close();
    }
  });
});
