/**
 * The drying log over HTTP (and its two main tools over MCP): psychrometrics against published
 * values, dry goals, whole-request checks, credits when a log starts, the plan, skipped days,
 * the estimate following the plan, warnings, other companies, read keys, replays, undo and the
 * change feed.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
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
import { connectMcp } from '../support/mcp';

type Schemas = components['schemas'];
type DryingLog = Schemas['DryingLog'];
type ReadingsAdded = Schemas['ReadingsAdded'];
type DryingLogWritten = Schemas['DryingLogWritten'];
type Entry = Schemas['ChangeEntry'];
type Estimate = Schemas['Estimate'];

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 100 });
});
afterAll(() => t.close());

const write = (company = co) => as(t, company.writeKey);
const read = (company = co) => as(t, company.readKey);

async function newJob(company = co): Promise<{ id: string; job_number: number }> {
  return (
    await write(company)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Wet Wanda' })
      .expect(201)
  ).body;
}

/** Ten days ago: the first day of the logs whose readings run over several days (none may be after today). */
const tenDaysAgo = () => companyDate(co, -10);

const readingsOf = (jobId: string) => `/api/v1/jobs/${jobId}/drying-log/readings`;

async function addReadings(
  jobId: string,
  body: Record<string, unknown>,
  company = co,
): Promise<ReadingsAdded> {
  return (
    await write(company)
      .post(readingsOf(jobId))
      .send({ operation_id: opId(), ...body })
      .expect(201)
  ).body;
}

async function logOf(jobId: string, query = ''): Promise<DryingLog> {
  return (await read().get(`/api/v1/jobs/${jobId}/drying-log${query}`).expect(200)).body;
}

async function newLog(
  rooms: string[] = ['Kitchen', 'Hall'],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; job_number: number; log: DryingLogWritten }> {
  const job = await newJob();
  const log = (
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({
        operation_id: opId(),
        rooms: rooms.map((name) => ({ name })),
        start_date: tenDaysAgo(),
        ...extra,
      })
      .expect(201)
  ).body;
  return { ...job, log };
}

const credits = async (company = co): Promise<number> =>
  (await read(company).get('/api/v1/context').expect(200)).body.credits.remaining;

async function feed(kind: string): Promise<Entry[]> {
  await feedSettled(t);
  const entries: Entry[] = [];
  let cursor = '';
  for (;;) {
    const page = (
      await read()
        .get(`/api/v1/changes?kind=${kind}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200)
    ).body;
    if (page.data.length === 0) return entries;
    entries.push(...page.data);
    cursor = page.next_cursor;
  }
}

/** Moist air at saturation (RH 100%), humidity ratio × 7000, ASHRAE Fundamentals (2017) ch. 1 table 2, 101.325 kPa. */
const SATURATION_GPP: [number, number][] = [
  [32, 0.003789 * 7000],
  [50, 0.007661 * 7000],
  [68, 0.014758 * 7000],
  [86, 0.027329 * 7000],
  [104, 0.049141 * 7000],
];

describe('psychrometrics', () => {
  it('computes GPP and dew point within 0.3 GPP and 0.5 °F of published values', async () => {
    const job = await newJob();
    const rows: Record<string, unknown>[] = SATURATION_GPP.map(([tempF], i) => ({
      date: companyDate(co, i - 10),
      area: 'Kitchen',
      readings: [
        { metric: 'temp_f', value: tempF },
        { metric: 'rh_pct', value: 100 },
      ],
    }));
    // Dew points of common conditions: 70 °F at 50% → 50.5 °F; 80 °F at 60% → 64.9 °F.
    rows.push({
      day: 6,
      area: 'Kitchen',
      readings: [
        { metric: 'temp_f', value: 70 },
        { metric: 'rh_pct', value: 50 },
      ],
    });
    rows.push({
      day: 7,
      area: 'Kitchen',
      readings: [
        { metric: 'temp_f', value: 80 },
        { metric: 'rh_pct', value: 60 },
      ],
    });
    const added = await addReadings(job.id, { rows });
    const byDay = new Map(added.conditions.map((c) => [c.day, c]));
    for (const [i, [tempF, gpp]] of SATURATION_GPP.entries()) {
      const condition = byDay.get(i + 1)!;
      expect(Math.abs(condition.gpp! - gpp)).toBeLessThanOrEqual(0.3);
      expect(Math.abs(condition.dew_point_f! - tempF)).toBeLessThanOrEqual(0.5);
    }
    expect(Math.abs(byDay.get(6)!.dew_point_f! - 50.5)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(byDay.get(7)!.dew_point_f! - 64.9)).toBeLessThanOrEqual(0.5);
    // The log shows the same values, computed from the stored readings.
    expect((await logOf(job.id, '?detail=readings')).conditions).toEqual(added.conditions);
  });

  it('stores temp_c as °F and computes from it', async () => {
    const job = await newJob();
    const added = await addReadings(job.id, {
      day: 1,
      area: 'Kitchen',
      readings: [
        { metric: 'temp_c', value: 20 },
        { metric: 'rh_pct', value: 100 },
      ],
    });
    expect(added.conditions[0]).toMatchObject({ temp_f: 68, rh_pct: 100 });
    expect(Math.abs(added.conditions[0].gpp! - 0.014758 * 7000)).toBeLessThanOrEqual(0.3);
    const readings = (await logOf(job.id, '?detail=readings')).readings!;
    expect(readings.map((r) => [r.metric, r.value])).toEqual([
      ['temp_f', 68],
      ['rh_pct', 100],
    ]);
  });

  it('corrects the pressure for elevation: 5,000 ft raises GPP by about 20%', async () => {
    const air = {
      day: 1,
      area: 'Kitchen',
      readings: [
        { metric: 'temp_f', value: 70 },
        { metric: 'rh_pct', value: 50 },
      ],
    };
    const seaLevel = await newLog(['Kitchen']);
    const high = await newLog(['Kitchen'], { elevation_ft: 5000 });
    const low = (await addReadings(seaLevel.id, air)).conditions[0];
    const raised = (await addReadings(high.id, air)).conditions[0];
    // ASHRAE's standard atmosphere: 84.31 kPa (24.90 inHg) at 5,000 ft; W = 0.621945 pw / (p − pw).
    const pw = (low.vapor_pressure_inhg! * 101.325) / 29.921;
    expect(Math.abs(raised.gpp! - ((0.621945 * pw) / (84.31 - pw)) * 7000)).toBeLessThanOrEqual(0.3);
    expect(raised.gpp! / low.gpp!).toBeCloseTo(1.2, 1);
    expect(raised.dew_point_f).toBe(low.dew_point_f);
    const log = await logOf(high.id);
    expect({ feet: log.elevation_ft, source: log.elevation_source, pressure: log.pressure_inhg }).toEqual({
      feet: 5000,
      source: 'log',
      pressure: 24.9,
    });
  });
});

describe('dry goals and dry days', () => {
  it("answers each reading with its goal: the log's latest reference by day, this request's included", async () => {
    // A reference adds no area: the log has the Kitchen first.
    const job = await newLog(['Kitchen']);
    const goal = (added: ReadingsAdded) =>
      added.materials.map((m) => [m.day, m.value, m.goal, m.goal_source]);
    await addReadings(job.id, {
      date: tenDaysAgo(),
      area: 'Kitchen',
      readings: [{ metric: 'drywall', value: 11, reference: true }],
    });
    // A reference saved earlier sets the goal of a later reading.
    expect(
      goal(
        await addReadings(job.id, {
          day: 2,
          area: 'Kitchen',
          readings: [{ metric: 'drywall', value: 10.5 }],
        }),
      ),
    ).toEqual([[2, 10.5, 11, 'area_reference']]);
    // A reference sent with the reading sets it: it is the latest by day.
    expect(
      goal(
        await addReadings(job.id, {
          day: 3,
          area: 'Kitchen',
          readings: [
            { metric: 'drywall', value: 9, reference: true },
            { metric: 'drywall', value: 10 },
          ],
        }),
      ),
    ).toEqual([[3, 10, 9, 'area_reference']]);
    // A reference for an earlier day, sent now, does not replace a later day's.
    const late = await addReadings(job.id, {
      rows: [
        { day: 1, area: 'Kitchen', readings: [{ metric: 'drywall', value: 20, reference: true }] },
        { day: 4, area: 'Kitchen', readings: [{ metric: 'drywall', value: 8.5 }] },
      ],
    });
    expect(goal(late)).toEqual([[4, 8.5, 9, 'area_reference']]);
    // Another material has no reference: its default goal.
    expect(
      goal(await addReadings(job.id, { day: 4, area: 'Kitchen', readings: [{ metric: 'wood', value: 14 }] })),
    ).toEqual([[4, 14, 15, 'default']]);
    // The full view says of each material reading whether it is at or below its goal, and whose
    // goal that is (the log's latest reference, as the summary uses); references and air have none.
    const full = (await logOf(job.id, '?detail=readings')).readings!;
    expect(full.map((r) => [r.day, r.metric, r.value, r.reference, r.goal])).toEqual([
      [1, 'drywall', 11, true, null],
      [1, 'drywall', 20, true, null],
      [2, 'drywall', 10.5, false, { value: 9, source: 'area_reference', at_or_below: false }],
      [3, 'drywall', 9, true, null],
      [3, 'drywall', 10, false, { value: 9, source: 'area_reference', at_or_below: false }],
      [4, 'drywall', 8.5, false, { value: 9, source: 'area_reference', at_or_below: true }],
      [4, 'wood', 14, false, { value: 15, source: 'default', at_or_below: true }],
    ]);
  });

  it('takes the goal from the area reference, else the building unaffected reading, else the default', async () => {
    const job = await newJob();
    await addReadings(job.id, {
      rows: [
        {
          date: tenDaysAgo(),
          area: 'Kitchen',
          readings: [
            { metric: 'drywall', value: 11, reference: true },
            { metric: 'drywall', value: 30, point: 'north wall' },
            { metric: 'wood', value: 25 },
          ],
        },
        { day: 1, location: 'unaffected', readings: [{ metric: 'drywall', value: 13 }] },
        {
          day: 1,
          area: 'Hall',
          readings: [
            { metric: 'drywall', value: 12.5 },
            { metric: 'concrete', value: 3 },
          ],
        },
        {
          day: 2,
          area: 'Kitchen',
          readings: [
            { metric: 'drywall', value: 10.5, point: 'north wall' },
            { metric: 'wood', value: 16 },
          ],
        },
        { day: 3, area: 'Kitchen', readings: [{ metric: 'wood', value: 14 }] },
      ],
    });
    const log = await logOf(job.id);
    const kitchen = log.areas.find((a) => a.name === 'Kitchen')!;
    const hall = log.areas.find((a) => a.name === 'Hall')!;
    expect(kitchen.materials.map((m) => [m.metric, m.point, m.value, m.goal, m.goal_source, m.dry])).toEqual([
      ['drywall', 'north wall', 10.5, 11, 'area_reference', true],
      ['wood', null, 14, 15, 'default', true],
    ]);
    expect(hall.materials.map((m) => [m.metric, m.value, m.goal, m.goal_source, m.dry])).toEqual([
      ['drywall', 12.5, 13, 'unaffected_reference', true],
      ['concrete', 3, 4, 'default', true],
    ]);
    // Kitchen's wood read wet on day 2 and dry on day 3: dry from day 3; Hall from day 1.
    expect([kitchen.dry_day, hall.dry_day]).toEqual([3, 1]);
    expect(log.wet_areas).toEqual([]);
    // As of day 2, the kitchen is still wet.
    const dayTwo = await logOf(job.id, '?to_day=2');
    expect(dayTwo.wet_areas).toEqual(['Kitchen']);
    expect(dayTwo.areas.find((a) => a.name === 'Kitchen')!.dry_day).toBeNull();
  });

  it('says which reading set each goal: where it was read, on which day, with which meter', async () => {
    const job = await newJob();
    await addReadings(job.id, {
      rows: [
        {
          date: tenDaysAgo(),
          area: 'Kitchen',
          readings: [
            {
              metric: 'drywall',
              value: 11,
              reference: true,
              point: 'hall closet',
              meter: ' Delmhorst BD-2100, drywall ',
            },
            { metric: 'drywall', value: 30, meter: 'Delmhorst BD-2100, drywall' },
          ],
        },
        { day: 1, location: 'unaffected', readings: [{ metric: 'wood', value: 13, point: 'bedroom door' }] },
        {
          day: 2,
          area: 'Kitchen',
          readings: [
            { metric: 'wood', value: 16 },
            { metric: 'concrete', value: 3 },
          ],
        },
      ],
    });
    const kitchen = (await logOf(job.id)).areas.find((a) => a.name === 'Kitchen')!;
    expect(kitchen.materials.map((m) => [m.metric, m.goal_source, m.reference])).toEqual([
      [
        'drywall',
        'area_reference',
        { area: 'Kitchen', day: 1, point: 'hall closet', meter: 'Delmhorst BD-2100, drywall' },
      ],
      ['wood', 'unaffected_reference', { area: null, day: 1, point: 'bedroom door', meter: null }],
      ['concrete', 'default', null],
    ]);
    const readings = (await logOf(job.id, '?detail=readings')).readings!;
    expect(readings.filter((r) => r.meter !== null).map((r) => [r.value, r.meter])).toEqual([
      [11, 'Delmhorst BD-2100, drywall'],
      [30, 'Delmhorst BD-2100, drywall'],
    ]);
  });

  it('warns of negative grain depression and of equipment billed past the dry day', async () => {
    const job = await newJob();
    const item = (
      (await read().get('/api/v1/price-list?q=dehumidifier&limit=50').expect(200)).body.data as {
        code: string;
        per_day: boolean;
      }[]
    ).find((i) => i.per_day)!;
    const estimate = (
      await write()
        .post(`/api/v1/jobs/${job.id}/estimates`)
        .send({
          operation_id: opId(),
          rooms: [{ name: 'Kitchen', drying_days: 5 }],
          line_items: [{ code: item.code, units_per_day: 1, room: 'Kitchen' }],
        })
        .expect(201)
    ).body.estimate as Estimate;
    const line = estimate.rooms[0].lines![0];
    await addReadings(job.id, {
      rows: [
        {
          date: tenDaysAgo(),
          area: 'Kitchen',
          readings: [
            { metric: 'drywall', value: 30 },
            { metric: 'temp_f', value: 75 },
            { metric: 'rh_pct', value: 40 },
            { metric: 'temp_f', value: 80, location: 'dehumidifier_exhaust' },
            { metric: 'rh_pct', value: 60, location: 'dehumidifier_exhaust' },
          ],
        },
        { day: 2, area: 'kitchen', readings: [{ metric: 'drywall', value: 12 }] },
      ],
    });
    // The log's start set the room to its plan (3 days); the estimator then bills 5.
    await write()
      .patch(`/api/v1/estimates/${estimate.id}/rooms/${estimate.rooms[0].id}`)
      .send({ operation_id: opId(), drying_days: 5 })
      .expect(200);
    const log = await logOf(job.id);
    const kitchen = log.areas[0];
    expect(kitchen.grain_depression).toBeLessThan(0);
    expect(log.warnings).toEqual([
      expect.objectContaining({ code: 'negative_grain_depression', area: 'Kitchen', day: 1 }),
      expect.objectContaining({
        code: 'billed_past_dry',
        area: 'Kitchen',
        day: 2,
        estimate_id: estimate.id,
        line_id: line.id,
        billed_days: 5,
        dry_day: 2,
      }),
      // No dehumidifier was placed on the log: all 5 billed days are billed past what was on site.
      expect.objectContaining({
        code: 'billed_not_placed',
        area: 'Kitchen',
        kind: 'dehumidifier',
        equipment_days: 0,
        billed_unit_days: 5,
        line_ids: [line.id],
      }),
    ]);
  });

  it('judges a day-billed line of its own quantity by its unit-days, not by days past dry (it states no days)', async () => {
    const job = await newJob();
    await addReadings(job.id, {
      rows: [
        { date: tenDaysAgo(), area: 'Hall', readings: [{ metric: 'drywall', value: 30 }] },
        { day: 2, area: 'Hall', readings: [{ metric: 'drywall', value: 10 }] },
      ],
    });
    const first = await logOf(job.id);
    await write()
      .post(`${readingsOf(job.id).replace('/readings', '')}/equipment`)
      .send({ operation_id: opId(), area: 'Hall', day: 1, units: [{ kind: 'air_mover', count: 2 }] })
      .expect(201);
    await write()
      .post(`/api/v1/estimates/${first.estimate_id}/line-items`)
      .send({ operation_id: opId(), line_items: [{ code: 'DRY-AM-STD', quantity: 4, room: 'Hall' }] })
      .expect(200);
    const log = await logOf(job.id);
    expect(log.areas[0]).toMatchObject({ name: 'Hall', dry_day: 2 });
    expect(log.warnings.map((w) => w.code)).not.toContain('billed_past_dry');
    // Two movers on site for the log's days so far, against the 4 unit-days the line bills.
    const billing = log.billing.find((b) => b.area === 'Hall' && b.kind === 'air_mover')!;
    expect(billing.billed_unit_days).toBe(4);
    expect(billing.status).toBe(
      billing.projected_days === 4 ? 'matches' : billing.projected_days > 4 ? 'under_billed' : 'over_billed',
    );
  });
});

describe('add_drying_readings', () => {
  it('saves rows across days and areas, adds areas and extends the plan and the estimate', async () => {
    const { id, log } = await newLog(['Kitchen']);
    const added = await addReadings(id, {
      source_of_values: 'read_from_log',
      rows: [
        { day: 2, area: 'Kitchen', readings: [{ metric: 'drywall', value: 22 }] },
        {
          day: 5,
          area: 'Bath',
          readings: [
            { metric: 'rh_pct', value: 45 },
            { metric: 'temp_f', value: 72 },
          ],
        },
        {
          date: log.log.start_date,
          location: 'outside',
          readings: [
            { metric: 'temp_f', value: 40 },
            { metric: 'rh_pct', value: 80 },
          ],
        },
      ],
    });
    expect({
      added: added.added,
      days: added.days,
      areas_added: added.areas_added,
      planned: added.planned_days,
    }).toEqual({ added: 5, days: [1, 2, 5], areas_added: ['Bath'], planned: { before: 3, after: 5 } });
    const after = await logOf(id, '?detail=readings');
    expect(after.planned_days).toBe(5);
    expect(after.areas.map((a) => a.name)).toEqual(['Kitchen', 'Bath']);
    expect(after.building.outside).toMatchObject({ temp_f: 40, rh_pct: 80, area: null });
    expect(new Set(after.readings!.map((r) => r.source_of_values))).toEqual(new Set(['read_from_log']));
    const estimate = (await read().get(`/api/v1/estimates/${after.estimate_id}`).expect(200))
      .body as Estimate;
    expect(estimate.rooms.map((r) => [r.name, r.drying_days])).toEqual([
      ['Kitchen', 5],
      ['Bath', 5],
    ]);
  });

  it('checks the whole request first: every bad row is named and nothing is saved', async () => {
    const { id, log } = await newLog(['Kitchen']);
    const before = await logOf(id);
    const res = await write()
      .post(readingsOf(id))
      .send({
        operation_id: opId(),
        rows: [
          { day: 1, area: 'Kitchen', readings: [{ metric: 'rh_pct', value: 40 }] },
          { day: 2, area: 'Kitchen', readings: [{ metric: 'rh_pct', value: 120 }] },
          { day: 2, area: 'Attic', readings: [{ metric: 'drywall', value: -1 }] },
          { date: '2001-01-01', area: 'Kitchen', readings: [{ metric: 'wood', value: 12 }] },
          { day: 3, readings: [{ metric: 'drywall', value: 12 }] },
        ],
      })
      .expect(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/rows/1/readings/0/value',
      '/body/rows/2/readings/0/value',
      '/body/rows/3/date',
      '/body/rows/4/area',
    ]);
    expect(res.body.errors[2].message).toContain(log.log.start_date);
    const unknown = await write()
      .post(readingsOf(id))
      .send({ operation_id: opId(), day: 1, area: 'Kitchen', readings: [{ metric: 'moisture', value: 1 }] })
      .expect(400);
    expect(unknown.body.errors[0]).toMatchObject({
      path: '/body/readings/0/metric',
      message: expect.stringContaining('temp_f, temp_c, rh_pct, drywall, wood'),
    });
    const early = await write()
      .post(readingsOf(id))
      .send({ operation_id: opId(), day: 0, area: 'Kitchen', readings: [{ metric: 'wood', value: 1 }] })
      .expect(400);
    expect(early.body.errors[0].path).toBe('/body/day');
    const after = await logOf(id);
    expect({ count: after.reading_count, areas: after.areas.length, planned: after.planned_days }).toEqual({
      count: before.reading_count,
      areas: 1,
      planned: 3,
    });
  });

  it('names the rows that fail the spec and those that fail its rules in one 400, over HTTP and MCP', async () => {
    const { id, job_number } = await newLog(['Kitchen']);
    const rows = [
      { day: 1, area: 'Kitchen', readings: [{ metric: 'rh_pct', value: 40 }] },
      { day: 1, area: 'Kitchen', readings: [{ metric: 'mud', value: 12 }] }, // spec: no such metric
      { day: 2, area: 'Kitchen', readings: [{ metric: 'rh_pct', value: 140 }] }, // rule: over 100%
      { day: 2, area: 'Kitchen', readings: [{ metric: 'drywall', value: '12' }] }, // spec: a string
      { day: 3, readings: [{ metric: 'drywall', value: 12 }] }, // rule: an affected reading needs an area
      { day: 3, area: 'Kitchen', readings: [{ metric: 'temp_f', value: 70, reference: true }] }, // rule
    ];
    const res = await write().post(readingsOf(id)).send({ operation_id: opId(), rows }).expect(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/rows/1/readings/0/metric',
      '/body/rows/2/readings/0/value',
      '/body/rows/3/readings/0/value',
      '/body/rows/4/area',
      '/body/rows/5/readings/0/reference',
    ]);
    expect(res.body.errors[1].message).toBe('rh_pct must be between 0 and 100%');
    // The body's own row beside bad rows, and a bad default: the rows are not read without it.
    const own = await write()
      .post(readingsOf(id))
      .send({
        operation_id: opId(),
        day: 1,
        area: 'Kitchen',
        readings: [{ metric: 'rh_pct', value: 140 }],
        rows: [rows[1]],
      })
      .expect(400);
    expect(own.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/readings/0/value',
      '/body/rows/0/readings/0/metric',
    ]);
    const badDefault = await write()
      .post(readingsOf(id))
      .send({ operation_id: opId(), location: 'attic', rows: [rows[2]] })
      .expect(400);
    expect(badDefault.body.errors.map((e: { path: string }) => e.path)).toEqual(['/body/location']);

    const client = await connectMcp(t, co.writeKey);
    try {
      const refused = (await client.callTool({
        name: 'add_drying_readings',
        arguments: { job_id: job_number, operation_id: opId(), rows },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      const problem = JSON.parse((refused.content[0] as { text: string }).text);
      expect(problem).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(problem.errors.map((e: { path: string }) => e.path)).toEqual([
        '/rows/1/readings/0/metric',
        '/rows/2/readings/0/value',
        '/rows/3/readings/0/value',
        '/rows/4/area',
        '/rows/5/readings/0/reference',
      ]);
    } finally {
      await client.close();
    }
    expect((await logOf(id)).reading_count).toBe(0);
  });

  it("refuses days after the company's today, naming every such row, and saves nothing", async () => {
    const { id } = await newLog(['Kitchen']);
    const drywall = [{ metric: 'drywall', value: 20 }];
    const res = await write()
      .post(readingsOf(id))
      .send({
        operation_id: opId(),
        rows: [
          { day: 11, area: 'Kitchen', readings: drywall },
          { day: 12, area: 'Kitchen', readings: drywall },
          { date: companyDate(co, 2), area: 'Kitchen', readings: drywall },
        ],
      })
      .expect(422);
    expect(res.body).toMatchObject({
      code: 'date_in_future',
      errors: [{ path: '/body/rows/1/day' }, { path: '/body/rows/2/date' }],
    });
    expect(res.body.errors[1].message).toContain(companyDate(co, 2));
    expect((await logOf(id)).reading_count).toBe(0);
    const note = await write()
      .post(`/api/v1/jobs/${id}/drying-log/notes`)
      .send({ operation_id: opId(), text: 'tomorrow', date: companyDate(co, 1) })
      .expect(422);
    expect(note.body).toMatchObject({ code: 'date_in_future', errors: [{ path: '/body/date' }] });
    expect((await logOf(id)).notes).toEqual([]);
    // A job without a log: no log is started for a day after today.
    const job = await newJob();
    await write()
      .post(readingsOf(job.id))
      .send({ operation_id: opId(), day: 2, area: 'Kitchen', readings: drywall })
      .expect(422);
    await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(404);
  });

  it('starts a new log on the earliest date sent; day numbers count from it', async () => {
    const job = await newJob();
    const added = await addReadings(job.id, {
      rows: [
        { day: 3, area: 'Kitchen', readings: [{ metric: 'drywall', value: 18 }] },
        { date: companyDate(co, -4), area: 'Kitchen', readings: [{ metric: 'drywall', value: 25 }] },
      ],
    });
    expect({ started: added.log_started, days: added.days, planned: added.planned_days.after }).toEqual({
      started: true,
      days: [1, 3],
      planned: 3,
    });
    const log = await logOf(job.id);
    expect({ start: log.start_date, today: log.today_day }).toEqual({ start: companyDate(co, -4), today: 5 });
    const note = await write()
      .post(`/api/v1/jobs/${(await newJob()).id}/drying-log/notes`)
      .send({ operation_id: opId(), text: 'first visit', date: companyDate(co, -2) })
      .expect(201);
    expect(note.body).toMatchObject({ log_started: true, note: { day: 1 } });
  });

  it('refuses more than 2,000 readings in one request', async () => {
    const { id } = await newLog(['Kitchen']);
    const rows = Array.from({ length: 21 }, (_, i) => ({
      day: (i % 30) + 1,
      area: 'Kitchen',
      readings: Array.from({ length: 100 }, () => ({ metric: 'drywall', value: 12 })),
    }));
    const res = await write().post(readingsOf(id)).send({ operation_id: opId(), rows }).expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/body/rows' })]);
    expect((await logOf(id)).reading_count).toBe(0);
  });
});

describe('create_drying_log, add_drying_note: starting a log and credits', () => {
  it('readings on a job with no estimate start the log and an estimate with one credit; a replay uses none', async () => {
    const job = await newJob();
    const before = await credits();
    const body = {
      operation_id: opId(),
      day: 1,
      area: 'Kitchen',
      readings: [{ metric: 'drywall', value: 25 }],
    };
    const first = await write().post(readingsOf(job.id)).send(body).expect(201);
    expect(first.body).toMatchObject({ log_started: true, credits: { used: 1, remaining: before - 1 } });
    expect(first.body.estimate).toMatchObject({ outcome: 'created', rooms_added: ['Kitchen'] });
    const replay = await write().post(readingsOf(job.id)).send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await credits()).toBe(before - 1);
    expect((await logOf(job.id)).reading_count).toBe(1);
    const estimates = (await read().get(`/api/v1/jobs/${job.id}`).expect(200)).body.estimates;
    expect(estimates).toEqual([expect.objectContaining({ id: first.body.estimate.estimate_id })]);
    // The same operation_id with other details is a conflict.
    const conflict = await write()
      .post(readingsOf(job.id))
      .send({ ...body, day: 2 })
      .expect(409);
    expect(conflict.body.code).toBe('operation_id_conflict');
  });

  it('a note starts the log too; on a job with an estimate no credit is used and the log is tied to it', async () => {
    const bare = await newJob();
    const before = await credits();
    const note = await write()
      .post(`/api/v1/jobs/${bare.id}/drying-log/notes`)
      .send({ operation_id: opId(), text: 'Set 2 air movers', area: 'Hall', day: 1 })
      .expect(201);
    expect(note.body).toMatchObject({
      log_started: true,
      credits: { used: 1 },
      note: { text: 'Set 2 air movers', area: 'Hall', day: 1 },
    });
    expect(await credits()).toBe(before - 1);
    expect((await logOf(bare.id)).notes.map((n) => n.text)).toEqual(['Set 2 air movers']);

    const priced = await newJob();
    const estimate = (
      await write()
        .post(`/api/v1/jobs/${priced.id}/estimates`)
        .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
        .expect(201)
    ).body.estimate;
    const beforeLog = await credits();
    const created = await write()
      .post(`/api/v1/jobs/${priced.id}/drying-log`)
      .send({
        operation_id: opId(),
        rooms: [{ name: 'kitchen' }, { name: 'Hall', planned_days: 2 }],
        planned_days: 4,
      })
      .expect(201);
    expect(created.body.credits).toEqual({ used: 0, remaining: beforeLog });
    expect(created.body.log.estimate_id).toBe(estimate.id);
    expect(created.body.estimate).toMatchObject({ outcome: 'updated', rooms_added: ['Hall'] });
    const rooms = ((await read().get(`/api/v1/estimates/${estimate.id}`).expect(200)).body as Estimate).rooms;
    expect(rooms.map((r) => [r.name, r.drying_days])).toEqual([
      ['Kitchen', 4],
      ['Hall', 2],
    ]);
    const again = await write()
      .post(`/api/v1/jobs/${priced.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
      .expect(409);
    expect(again.body.code).toBe('invalid_state');
  });

  it('answers 402 with no credit left and saves nothing', async () => {
    const poor = await createCompany(t, { credits: 0 });
    const job = await newJob(poor);
    for (const [path, body] of [
      ['drying-log', { rooms: [{ name: 'Kitchen' }] }],
      ['drying-log/readings', { day: 1, area: 'Kitchen', readings: [{ metric: 'drywall', value: 20 }] }],
      ['drying-log/notes', { text: 'no credit' }],
    ] as const) {
      const res = await write(poor)
        .post(`/api/v1/jobs/${job.id}/${path}`)
        .send({ operation_id: opId(), ...body })
        .expect(402);
      expect(res.body.code).toBe('insufficient_credits');
    }
    await read(poor).get(`/api/v1/jobs/${job.id}/drying-log`).expect(404);
    expect((await read(poor).get(`/api/v1/jobs/${job.id}`).expect(200)).body.estimates).toEqual([]);
    expect(await t.db('drying_logs').where({ company_id: poor.id }).count('id as n').first()).toEqual({
      n: 0,
    });
  });
});

describe('skip_drying_day', () => {
  it('marks a day by date for one area and by number for every area; readings stay, marked', async () => {
    const { id, log } = await newLog(['Kitchen', 'Hall']);
    await addReadings(id, { day: 2, area: 'Kitchen', readings: [{ metric: 'drywall', value: 20 }] });
    const date = log.log.days[1].date;
    const one = await write()
      .post(`/api/v1/jobs/${id}/drying-log/skip-day`)
      .send({ operation_id: opId(), date, area: 'hall', reason: 'No access' })
      .expect(201);
    expect(one.body).toMatchObject({ day: 2, date, area: 'Hall', readings_kept: 0 });
    const all = await write()
      .post(`/api/v1/jobs/${id}/drying-log/skip-day`)
      .send({ operation_id: opId(), day: 2 })
      .expect(201);
    expect(all.body).toMatchObject({ day: 2, area: null, readings_kept: 1 });
    const after = await logOf(id, '?detail=readings');
    expect(after.days[1]).toMatchObject({
      day: 2,
      read_areas: ['Kitchen'],
      monitored: false,
      skipped_areas: ['Kitchen', 'Hall'],
      skip_reasons: [{ area: 'Hall', reason: 'No access' }],
      readings: 1,
    });
    expect(after.days[0]).toMatchObject({
      read_areas: [],
      monitored: true,
      skipped_areas: [],
      skip_reasons: [],
    });
    expect(after.readings!.map((r) => r.on_skipped_day)).toEqual([true]);

    const again = await write()
      .post(`/api/v1/jobs/${id}/drying-log/skip-day`)
      .send({ operation_id: opId(), day: 2, area: 'Kitchen' })
      .expect(409);
    expect(again.body.code).toBe('invalid_state');
    const unknown = await write()
      .post(`/api/v1/jobs/${id}/drying-log/skip-day`)
      .send({ operation_id: opId(), day: 1, area: 'Attic' })
      .expect(422);
    expect(unknown.body).toMatchObject({ code: 'unknown_area', valid_values: ['Kitchen', 'Hall'] });
    const past = await write()
      .post(`/api/v1/jobs/${id}/drying-log/skip-day`)
      .send({ operation_id: opId(), day: 9 })
      .expect(400);
    expect(past.body.errors[0].path).toBe('/body/day');
  });
});

describe('update_drying_settings', () => {
  it('re-prices the day-billed lines of the tied estimate and says which lines changed', async () => {
    const job = await newJob();
    const item = (
      (await read().get('/api/v1/price-list?q=air mover&limit=50').expect(200)).body.data as {
        code: string;
        per_day: boolean;
      }[]
    ).find((i) => i.per_day)!;
    const created = await write()
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({
        operation_id: opId(),
        rooms: [{ name: 'Kitchen', drying_days: 3 }],
        line_items: [{ code: item.code, units_per_day: 2, room: 'Kitchen' }],
      })
      .expect(201);
    const line = (created.body.estimate as Estimate).rooms[0].lines![0];
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
      .expect(201);
    const res = await write()
      .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
      .send({ operation_id: opId(), area: 'Kitchen', planned_days: 5 })
      .expect(200);
    const followed = res.body.estimate as Schemas['EstimateFollowed'];
    const perUnit = line.unit_price_cents;
    expect(followed.changed_lines).toEqual([
      {
        line_id: line.id,
        description: line.description,
        room: 'Kitchen',
        days_before: 3,
        days_after: 5,
        quantity_before: 6,
        quantity_after: 10,
        total_cents_before: 6 * perUnit,
        total_cents_after: 10 * perUnit,
      },
    ]);
    expect(followed.total_after.cents).toBeGreaterThan(followed.total_before.cents);
    const estimate = (await read().get(`/api/v1/estimates/${followed.estimate_id}`).expect(200))
      .body as Estimate;
    expect(estimate.rooms[0].lines![0].quantity).toBe(10);
    expect(estimate.totals.total_cents).toBe(followed.total_after.cents);
    expect(res.body.log.areas[0]).toMatchObject({ planned_days: 5, own_planned_days: 5 });

    const entry = (await feed('schedule')).filter((e) => e.job?.id === job.id).at(-1)!;
    expect(entry.data).toEqual({
      action: 'drying.settings_changed',
      log_id: res.body.log.id,
      area: 'Kitchen',
      fields: [{ field: 'area_planned_days', before: null, after: 5 }],
      estimate: {
        estimate_id: followed.estimate_id,
        outcome: 'updated',
        changed_lines: [line.id],
        total_before: followed.total_before,
        total_after: followed.total_after,
      },
    });

    // Nothing to change: the log as it is, nothing recorded.
    const same = await write()
      .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
      .send({ operation_id: opId(), area: 'kitchen', planned_days: 5 })
      .expect(200);
    expect(same.body.estimate).toBeNull();

    // A final estimate is left alone (it becomes final when its PDF is downloaded; set here directly).
    await t.db('estimates').where({ id: followed.estimate_id }).update({ status: 'final' });
    const final = await write()
      .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
      .send({ operation_id: opId(), planned_days: 7, start_date: '2026-01-05' })
      .expect(200);
    expect(final.body.estimate).toMatchObject({ outcome: 'final_left_alone', changed_lines: [] });
    expect(
      ((await read().get(`/api/v1/estimates/${followed.estimate_id}`).expect(200)).body as Estimate).rooms[0]
        .drying_days,
    ).toBe(5);
    expect(final.body.log).toMatchObject({
      start_date: '2026-01-05',
      planned_days: 7,
      end_date: '2026-01-11',
    });
  });
});

describe('get_drying_log', () => {
  it('narrows to one area and a range of days, and adds every reading on request', async () => {
    const { id } = await newLog(['Kitchen', 'Hall']);
    await addReadings(id, {
      rows: [1, 2, 3].flatMap((day) => [
        {
          day,
          area: 'Kitchen',
          readings: [
            { metric: 'temp_f', value: 72 },
            { metric: 'rh_pct', value: 50 - day },
            { metric: 'drywall', value: 30 - day },
          ],
        },
        { day, area: 'Hall', readings: [{ metric: 'drywall', value: 20 }] },
      ]),
    });
    const summary = await logOf(id);
    expect(summary.readings).toBeUndefined();
    expect(summary.reading_count).toBe(12);
    const kitchen = await logOf(id, '?area=KITCHEN&from_day=2&to_day=2&detail=readings');
    expect(kitchen.areas.map((a) => a.name)).toEqual(['Kitchen']);
    expect(kitchen.days.map((d) => d.day)).toEqual([2]);
    expect(kitchen.readings!.map((r) => [r.area, r.day, r.metric])).toEqual([
      ['Kitchen', 2, 'temp_f'],
      ['Kitchen', 2, 'rh_pct'],
      ['Kitchen', 2, 'drywall'],
    ]);
    expect(kitchen.conditions!.map((c) => [c.day, c.rh_pct])).toEqual([[2, 48]]);
    expect(kitchen.areas[0].materials[0]).toMatchObject({ day: 2, value: 28 });

    await read().get(`/api/v1/jobs/${id}/drying-log?area=Attic`).expect(422);
    await read().get(`/api/v1/jobs/${id}/drying-log?from_day=3&to_day=2`).expect(400);
    const none = await newJob();
    expect((await read().get(`/api/v1/jobs/${none.id}/drying-log`).expect(404)).body.detail).toContain(
      'no drying log',
    );
  });
});

describe('keys and companies', () => {
  const writes = (jobId: string): [string, string, Record<string, unknown>][] => [
    ['post', `/api/v1/jobs/${jobId}/drying-log`, { rooms: [{ name: 'Kitchen' }] }],
    ['patch', `/api/v1/jobs/${jobId}/drying-log/settings`, { planned_days: 4 }],
    [
      'post',
      `/api/v1/jobs/${jobId}/drying-log/readings`,
      { day: 1, area: 'Kitchen', readings: [{ metric: 'drywall', value: 20 }] },
    ],
    ['post', `/api/v1/jobs/${jobId}/drying-log/notes`, { text: 'hi' }],
    ['post', `/api/v1/jobs/${jobId}/drying-log/skip-day`, { day: 1 }],
  ];

  it("answers 404 for another company's job, and 403 to a read key on every write", async () => {
    const { id } = await newLog(['Kitchen']);
    const other = await createCompany(t, { credits: 5 });
    await read(other).get(`/api/v1/jobs/${id}/drying-log`).expect(404);
    for (const [method, path, body] of writes(id)) {
      const foreign = await write(other)
        [method as 'post'](path)
        .send({ operation_id: opId(), ...body });
      expect({ path, status: foreign.status }).toEqual({ path, status: 404 });
      const readKey = await read()
        [method as 'post'](path)
        .send({ operation_id: opId(), ...body });
      expect({ path, status: readKey.status, code: readKey.body.code }).toEqual({
        path,
        status: 403,
        code: 'write_key_required',
      });
    }
    expect(await t.db('drying_logs').where({ company_id: other.id }).count('id as n').first()).toEqual({
      n: 0,
    });
  });
});

describe('undo and the change feed', () => {
  const undo = () => write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);

  it('takes back each drying write', async () => {
    const job = await newJob();
    await write()
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen', drying_days: 2 }] })
      .expect(201);
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }], start_date: tenDaysAgo() })
      .expect(201);
    const base = await logOf(job.id);

    await addReadings(job.id, { day: 6, area: 'Bath', readings: [{ metric: 'drywall', value: 20 }] });
    await undo();
    const afterReadings = await logOf(job.id);
    expect({
      count: afterReadings.reading_count,
      planned: afterReadings.planned_days,
      areas: afterReadings.areas.map((a) => a.name),
    }).toEqual({ count: 0, planned: 3, areas: ['Kitchen'] });
    const estimate = (
      (await read().get(`/api/v1/estimates/${base.estimate_id}`).expect(200)).body as Estimate
    ).rooms;
    expect(estimate.map((r) => [r.name, r.drying_days])).toEqual([['Kitchen', 3]]);

    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log/notes`)
      .send({ operation_id: opId(), text: 'gone soon' })
      .expect(201);
    await undo();
    expect((await logOf(job.id)).notes).toEqual([]);

    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log/skip-day`)
      .send({ operation_id: opId(), day: 1 })
      .expect(201);
    await undo();
    expect((await logOf(job.id)).days[0].monitored).toBe(true);

    await write()
      .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
      .send({ operation_id: opId(), planned_days: 5, start_date: '2026-02-01' })
      .expect(200);
    await undo();
    expect(await logOf(job.id)).toEqual(base);

    await undo(); // create_drying_log
    await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(404);
    const rooms = ((await read().get(`/api/v1/estimates/${base.estimate_id}`).expect(200)).body as Estimate)
      .rooms;
    expect(rooms.map((r) => [r.name, r.drying_days])).toEqual([['Kitchen', 2]]);
  });

  it('records readings under visits, the log, settings and skips under schedule and notes under notes, with their details', async () => {
    const job = await newJob();
    const added = await addReadings(job.id, {
      rows: [
        { date: tenDaysAgo(), area: 'Kitchen', readings: [{ metric: 'drywall', value: 20 }] },
        { day: 4, area: 'Hall', readings: [{ metric: 'rh_pct', value: 40 }] },
      ],
    });
    const note = (
      await write()
        .post(`/api/v1/jobs/${job.id}/drying-log/notes`)
        .send({ operation_id: opId(), text: 'fans moved', area: 'Hall', day: 2 })
        .expect(201)
    ).body;
    const skip = (
      await write()
        .post(`/api/v1/jobs/${job.id}/drying-log/skip-day`)
        .send({ operation_id: opId(), day: 3, area: 'Kitchen' })
        .expect(201)
    ).body;
    const mine = (entries: Entry[]) => entries.filter((e) => e.job?.id === job.id).map((e) => e.data);
    expect(mine(await feed('visits'))).toEqual([
      {
        action: 'drying.readings_added',
        log_id: added.log_id,
        count: 2,
        days: [1, 4],
        areas: ['Kitchen', 'Hall'],
        areas_added: ['Kitchen', 'Hall'],
        planned_days: null,
        on_site_by: null,
      },
    ]);
    expect(mine(await feed('schedule'))).toEqual([
      {
        action: 'drying.log_started',
        log_id: added.log_id,
        start_date: expect.any(String),
        planned_days: 4,
        areas: ['Kitchen', 'Hall'],
        started_by: 'add_drying_readings',
        estimate_id: added.estimate!.estimate_id,
        credits_used: 1,
      },
      {
        action: 'drying.day_skipped',
        log_id: added.log_id,
        day: 3,
        date: skip.date,
        area: 'Kitchen',
        readings_kept: 0,
      },
    ]);
    expect(mine(await feed('notes'))).toEqual([
      {
        action: 'drying.note_added',
        log_id: added.log_id,
        note_id: note.note.id,
        area: 'Hall',
        day: 2,
        on_site_by: null,
      },
    ]);
  });
});

describe('over MCP', () => {
  it('records readings and reads the log, with the job given as a number', async () => {
    const client = await connectMcp(t, co.writeKey);
    try {
      const job = await newJob();
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        return result.structuredContent as Record<string, unknown>;
      };
      const added = (await call('add_drying_readings', {
        job_id: job.job_number,
        operation_id: opId(),
        source_of_values: 'dictated_by_user',
        day: 1,
        area: 'Kitchen',
        readings: [
          { metric: 'temp_f', value: 70 },
          { metric: 'rh_pct', value: 50 },
          { metric: 'drywall', value: 25 },
        ],
      })) as unknown as ReadingsAdded;
      expect(added.conditions[0]).toMatchObject({ gpp: expect.any(Number), dew_point_f: 50.5 });
      const log = (await call('get_drying_log', { job_id: job.job_number })) as unknown as DryingLog;
      expect(log.areas[0]).toMatchObject({
        name: 'Kitchen',
        dry: false,
        air: { gpp: added.conditions[0].gpp },
      });
      expect(log.wet_areas).toEqual(['Kitchen']);
      const wrong = (await client.callTool({
        name: 'add_drying_readings',
        arguments: {
          job_id: job.job_number,
          operation_id: opId(),
          day: 1,
          area: 'Kitchen',
          readings: [{ metric: 'mud', value: 1 }],
        },
      })) as CallToolResult;
      const problem = JSON.parse((wrong.content[0] as { text: string }).text);
      expect(problem.errors[0]).toMatchObject({
        path: '/readings/0/metric',
        message: expect.stringContaining('drywall'),
      });

      // What tools/list shows an assistant is the rows form alone; the single row above is still taken.
      const listed = (await client.listTools()).tools.find((tool) => tool.name === 'add_drying_readings')!;
      expect(Object.keys(listed.inputSchema.properties!)).toEqual(['job_id', 'operation_id', 'by', 'rows']);
      const rows = (await call('add_drying_readings', {
        job_id: job.job_number,
        operation_id: opId(),
        rows: [
          { day: 1, area: 'Hall', readings: [{ metric: 'drywall', value: 30, point: 'north wall 2 ft' }] },
          {
            day: 1,
            location: 'outside',
            readings: [
              { metric: 'temp_f', value: 40 },
              { metric: 'rh_pct', value: 60 },
            ],
          },
        ],
      })) as unknown as ReadingsAdded;
      expect(rows).toMatchObject({ added: 3, days: [1], areas_added: ['Hall'] });
    } finally {
      await client.close();
    }
  });
});

describe('start dates', () => {
  it('refuses a start date more than a year ahead, on creation and in settings', async () => {
    const job = await newJob();
    const far = await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }], start_date: '9999-12-31' })
      .expect(400);
    expect(far.body.errors).toEqual([expect.objectContaining({ path: '/body/start_date' })]);
    const { id } = await newLog(['Kitchen']);
    const later = await write()
      .patch(`/api/v1/jobs/${id}/drying-log/settings`)
      .send({ operation_id: opId(), start_date: '9999-12-31', planned_days: 365 })
      .expect(400);
    expect(later.body.errors).toEqual([expect.objectContaining({ path: '/body/start_date' })]);
    expect((await logOf(id)).planned_days).toBe(3);
  });
});

describe('the summary a node keeps per log revision', () => {
  it('is never stale: after a write, an undo, an estimate change, or a write through another node', async () => {
    const job = await newJob();
    const estimate = (
      await write()
        .post(`/api/v1/jobs/${job.id}/estimates`)
        .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
        .expect(201)
    ).body.estimate as Estimate;
    await addReadings(job.id, {
      date: tenDaysAgo(),
      area: 'Kitchen',
      readings: [{ metric: 'drywall', value: 10 }],
    });
    const first = await logOf(job.id);
    expect({ count: first.reading_count, warnings: first.warnings }).toEqual({ count: 1, warnings: [] });
    expect(await logOf(job.id)).toEqual(first);

    await addReadings(job.id, { day: 2, area: 'Kitchen', readings: [{ metric: 'drywall', value: 30 }] });
    expect((await logOf(job.id)).reading_count).toBe(2);
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect(await logOf(job.id)).toEqual(first);

    // The estimate is not part of the log: a dehumidifier billed for the kitchen's 3 planned days,
    // then for 5, warns at once.
    const item = (
      (await read().get('/api/v1/price-list?q=dehumidifier&limit=50').expect(200)).body.data as {
        code: string;
        per_day: boolean;
      }[]
    ).find((i) => i.per_day)!;
    await write()
      .post(`/api/v1/estimates/${estimate.id}/line-items`)
      .send({ operation_id: opId(), line_items: [{ code: item.code, units_per_day: 1, room: 'Kitchen' }] })
      .expect(200);
    expect((await logOf(job.id)).warnings).toEqual([
      expect.objectContaining({ code: 'billed_past_dry', billed_days: 3, dry_day: 1 }),
      expect.objectContaining({ code: 'billed_not_placed', billed_unit_days: 3 }),
    ]);
    await write()
      .patch(`/api/v1/estimates/${estimate.id}/rooms/${estimate.rooms[0].id}`)
      .send({ operation_id: opId(), drying_days: 5 })
      .expect(200);
    expect((await logOf(job.id)).warnings).toEqual([
      expect.objectContaining({ code: 'billed_past_dry', billed_days: 5, dry_day: 1 }),
      expect.objectContaining({ code: 'billed_not_placed', billed_unit_days: 5 }),
    ]);

    // Another node on the same PostgreSQL database writes; this node's next read shows it.
    if (!process.env.DATABASE_URL) return;
    const other = await startApp();
    try {
      await as(other, co.writeKey)
        .post(readingsOf(job.id))
        .send({ operation_id: opId(), day: 3, area: 'Kitchen', readings: [{ metric: 'drywall', value: 9 }] })
        .expect(201);
      expect((await logOf(job.id)).reading_count).toBe(2);
    } finally {
      await other.close();
    }
  });
});
