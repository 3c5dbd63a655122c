/**
 * Drying equipment over HTTP and MCP: units placed and removed on dates, equipment-days per
 * unit, area and job in get_drying_log, dates after today refused, the feed, undo, replays and
 * conflicts, read keys, other companies and bad bodies.
 */
import type { components } from '../../sdk/src/schema';
import {
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { callTool, connectMcp, problemOf } from '../support/mcp';

type Schemas = components['schemas'];
type DryingLog = Schemas['DryingLog'];
type EquipmentPlaced = Schemas['EquipmentPlaced'];
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
const DAY_MS = 86_400_000;
const dateOf = (start: string, day: number) =>
  new Date(Date.parse(`${start}T00:00:00Z`) + (day - 1) * DAY_MS).toISOString().slice(0, 10);

/** A job whose log started four days ago (day 5 is today), with a Kitchen and a Hall. */
async function jobWithLog(company = co): Promise<{ id: string; job_number: number; start: string }> {
  const job = (
    await write(company)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Dry Dora' })
      .expect(201)
  ).body;
  const today = (await read(company).get('/api/v1/context').expect(200)).body.company.today as string;
  const start = dateOf(today, -3);
  await write(company)
    .post(`/api/v1/jobs/${job.id}/drying-log`)
    .send({
      operation_id: opId(),
      start_date: start,
      planned_days: 5,
      rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
    })
    .expect(201);
  return { ...job, start };
}

const equipmentOf = (jobId: string) => `/api/v1/jobs/${jobId}/drying-log/equipment`;
const place = (jobId: string, body: Record<string, unknown>, company = co) =>
  write(company)
    .post(equipmentOf(jobId))
    .send({ operation_id: opId(), ...body });
const remove = (jobId: string, body: Record<string, unknown>, company = co) =>
  write(company)
    .post(`${equipmentOf(jobId)}/remove`)
    .send({ operation_id: opId(), ...body });
const logOf = async (jobId: string): Promise<DryingLog> =>
  (await read().get(`/api/v1/jobs/${jobId}/drying-log`).expect(200)).body;

async function feedOf(jobNumber: number): Promise<Entry[]> {
  await feedSettled(t);
  return ((await read().get('/api/v1/changes?limit=100').expect(200)).body.data as Entry[]).filter(
    (e) => e.job?.job_number === jobNumber,
  );
}

describe('place_equipment, remove_equipment: drying equipment', () => {
  it('places and removes units on dates and counts equipment-days per unit, area and job', async () => {
    const job = await jobWithLog();
    const kitchen = (
      await place(job.id, {
        area: 'kitchen',
        date: job.start,
        units: [
          { kind: 'air_mover', count: 3 },
          { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 110, asset_tag: ' DH-07 ' },
        ],
      }).expect(201)
    ).body as EquipmentPlaced;
    expect(kitchen).toMatchObject({ area: 'Kitchen', date: job.start, day: 1 });
    expect(
      kitchen.placed.map((u) => [
        u.kind,
        u.dehumidifier_type,
        u.pints_per_day,
        u.asset_tag,
        u.placed_on,
        u.removed_on,
        u.days_on_site,
      ]),
    ).toEqual([
      ['air_mover', null, null, null, job.start, null, 5],
      ['air_mover', null, null, null, job.start, null, 5],
      ['air_mover', null, null, null, job.start, null, 5],
      ['dehumidifier', 'lgr', 110, 'DH-07', job.start, null, 5],
    ]);
    // Without a date, today: day 5, one equipment-day so far.
    const hall = (await place(job.id, { area: 'Hall', units: [{ kind: 'air_scrubber' }] }).expect(201))
      .body as EquipmentPlaced;
    expect([hall.day, hall.placed[0].days_on_site]).toEqual([5, 1]);
    expect(hall.equipment).toMatchObject({
      on_site: 5,
      equipment_days: 21,
      by_area: [
        { area: 'Kitchen', on_site: 4, equipment_days: 20 },
        { area: 'Hall', on_site: 1, equipment_days: 1 },
      ],
    });

    // The dehumidifier went on day 4: days 1 to 3 count, the day removed does not.
    const dehumidifier = kitchen.placed[3].id;
    const removed = (await remove(job.id, { equipment_ids: [dehumidifier], day: 4 }).expect(200)).body;
    expect(removed.removed).toEqual([
      expect.objectContaining({ id: dehumidifier, removed_on: dateOf(job.start, 4), days_on_site: 3 }),
    ]);
    const log = await logOf(job.id);
    expect(log.equipment).toMatchObject({
      on_site: 4,
      equipment_days: 19,
      by_area: [
        { area: 'Kitchen', on_site: 3, equipment_days: 18 },
        { area: 'Hall', on_site: 1, equipment_days: 1 },
      ],
    });
    expect(log.equipment.units.map((u) => u.id)).toEqual(
      [...kitchen.placed, ...hall.placed].map((u) => u.id),
    );

    // A unit placed and removed the same day counts one.
    const heater = (await place(job.id, { area: 'Hall', day: 2, units: [{ kind: 'heater' }] }).expect(201))
      .body.placed[0];
    expect(
      (await remove(job.id, { equipment_ids: [heater.id], day: 2 }).expect(200)).body.removed[0].days_on_site,
    ).toBe(1);

    const entries = await feedOf(job.job_number);
    const placedEntry = entries.find((e) => e.action === 'drying.equipment_placed');
    expect(placedEntry).toMatchObject({
      kind: 'visits',
      data: {
        action: 'drying.equipment_placed',
        area: 'Kitchen',
        date: job.start,
        units: kitchen.placed.map((u) => ({ id: u.id, kind: u.kind, asset_tag: u.asset_tag })),
      },
    });
    expect(entries.find((e) => e.action === 'drying.equipment_removed')).toMatchObject({
      data: {
        date: dateOf(job.start, 4),
        units: [{ id: dehumidifier, kind: 'dehumidifier', area: 'Kitchen', asset_tag: 'DH-07' }],
      },
    });
  });

  it("compares the estimate's day-billed equipment with the equipment-days, both ways, in the log and its warnings", async () => {
    const job = await jobWithLog();
    const [mover, , , dehumidifier] = (
      await place(job.id, {
        area: 'Kitchen',
        date: job.start,
        units: [
          { kind: 'air_mover', count: 3 },
          { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 110 },
        ],
      }).expect(201)
    ).body.placed as Schemas['EquipmentUnit'][];
    await remove(job.id, { equipment_ids: [dehumidifier.id], day: 4 }).expect(200);
    await place(job.id, { area: 'Hall', units: [{ kind: 'air_scrubber' }, { kind: 'other' }] }).expect(201);
    const estimateId = (await logOf(job.id)).estimate_id!;
    const lines = [
      { code: 'DRY-AM-STD', units_per_day: 3, room: 'Kitchen' },
      { code: 'DRY-DH-LGR', units_per_day: 1, room: 'Kitchen' },
      { code: 'DRY-HEAT-ELEC', quantity: 2, room: 'Hall' },
      { code: 'DEM-DW-2FT', quantity: 40, room: 'Hall' },
    ];
    await write()
      .post(`/api/v1/estimates/${estimateId}/line-items`)
      .send({ operation_id: opId(), line_items: lines })
      .expect(200);
    const estimate = (await read().get(`/api/v1/estimates/${estimateId}`).expect(200))
      .body as Schemas['Estimate'];
    const lineId = (code: string) =>
      estimate.rooms.flatMap((r) => r.lines ?? []).find((l) => l.code === code)!.id;

    const log = await logOf(job.id);
    // Day 5 is today and the plan's last day: the air movers ran 5 days each, billed 3 a day × 5.
    expect(
      log.billing.map((b) => [
        b.area,
        b.kind,
        b.equipment_days,
        b.projected_days,
        b.billed_unit_days,
        b.status,
      ]),
    ).toEqual([
      ['Kitchen', 'air_mover', 15, 15, 15, 'matches'],
      ['Kitchen', 'dehumidifier', 3, 3, 5, 'over_billed'],
      ['Hall', 'air_scrubber', 1, 1, 0, 'not_billed'],
      ['Hall', 'heater', 0, 0, 2, 'over_billed'],
    ]);
    expect(log.billing[0].line_ids).toEqual([lineId('DRY-AM-STD')]);
    const billingWarnings = log.warnings.filter(
      (w) => w.code === 'equipment_not_billed' || w.code === 'billed_not_placed',
    );
    expect(
      billingWarnings.map((w) => [w.code, w.area, w.kind, w.equipment_days, w.billed_unit_days, w.line_ids]),
    ).toEqual([
      ['billed_not_placed', 'Kitchen', 'dehumidifier', 3, 5, [lineId('DRY-DH-LGR')]],
      ['equipment_not_billed', 'Hall', 'air_scrubber', 1, 0, []],
      ['billed_not_placed', 'Hall', 'heater', 0, 2, [lineId('DRY-HEAT-ELEC')]],
    ]);
    expect(billingWarnings[1].message).toContain('not billed in full');

    // A longer plan: the air movers still on site count through day 7, and the lines follow the plan.
    await write()
      .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
      .send({ operation_id: opId(), planned_days: 7 })
      .expect(200);
    const longer = await logOf(job.id);
    expect(longer.billing[0]).toMatchObject({
      kind: 'air_mover',
      equipment_days: 15,
      projected_days: 21,
      billed_unit_days: 21,
      status: 'matches',
    });
    expect(longer.billing[1]).toMatchObject({
      kind: 'dehumidifier',
      projected_days: 3,
      billed_unit_days: 7,
      status: 'over_billed',
    });
    // One air mover taken away today: 4 days of it were placed, but the line still bills 3 a day.
    await remove(job.id, { equipment_ids: [mover.id] }).expect(200);
    expect((await logOf(job.id)).billing[0]).toMatchObject({
      equipment_days: 14,
      projected_days: 18,
      billed_unit_days: 21,
      status: 'over_billed',
    });
  });

  it('gives each dehumidifier its grain depression from its own inlet and exhaust air, else the area air', async () => {
    const job = await jobWithLog();
    const [dh07, dh09, mover] = (
      await place(job.id, {
        area: 'Kitchen',
        date: job.start,
        units: [
          { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 110, asset_tag: 'DH-07' },
          { kind: 'dehumidifier', dehumidifier_type: 'conventional', pints_per_day: 70, asset_tag: 'DH-09' },
          { kind: 'air_mover' },
        ],
      }).expect(201)
    ).body.placed as Schemas['EquipmentUnit'][];
    await place(job.id, {
      area: 'Hall',
      date: job.start,
      units: [{ kind: 'dehumidifier', asset_tag: 'DH-11' }],
    }).expect(201);
    const air = (temp: number, rh: number, location?: string, unit?: string) => [
      { metric: 'temp_f', value: temp, location, unit },
      { metric: 'rh_pct', value: rh, location, unit },
    ];
    const readings = (body: Record<string, unknown>) =>
      write()
        .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
        .send({ operation_id: opId(), ...body });
    await readings({
      day: 2,
      area: 'Kitchen',
      readings: [
        ...air(75, 60),
        ...air(76, 58, 'dehumidifier_inlet', 'dh-07'),
        ...air(95, 20, 'dehumidifier_exhaust', 'DH-07'),
        ...air(90, 35, 'dehumidifier_exhaust', dh09.id),
      ],
    }).expect(201);
    const log = (await read().get(`/api/v1/jobs/${job.id}/drying-log?detail=readings`).expect(200))
      .body as DryingLog;
    const gpp = (location: string, unit?: string) =>
      log.conditions!.find((c) => c.location === location && c.unit_id === unit && c.area === 'Kitchen')!
        .gpp!;
    expect(log.unit_grain_depression).toEqual([
      {
        unit_id: dh07.id,
        area: 'Kitchen',
        day: 2,
        inlet_gpp: gpp('dehumidifier_inlet', dh07.id),
        inlet_source: 'inlet',
        exhaust_gpp: gpp('dehumidifier_exhaust', dh07.id),
        value:
          Math.round((gpp('dehumidifier_inlet', dh07.id) - gpp('dehumidifier_exhaust', dh07.id)) * 10) / 10,
      },
      {
        unit_id: dh09.id,
        area: 'Kitchen',
        day: 2,
        inlet_gpp: gpp('affected'),
        inlet_source: 'area_air',
        exhaust_gpp: gpp('dehumidifier_exhaust', dh09.id),
        value: Math.round((gpp('affected') - gpp('dehumidifier_exhaust', dh09.id)) * 10) / 10,
      },
    ]);
    expect(log.unit_grain_depression[0].value).toBeGreaterThan(20);

    // A unit only at a dehumidifier's inlet or exhaust; then every unit that is not a dehumidifier of
    // the row's area on site, or no unit of the log, is named. Nothing is saved.
    const misplaced = await readings({
      day: 2,
      area: 'Kitchen',
      readings: [{ metric: 'rh_pct', value: 40, unit: 'DH-07' }],
    }).expect(400);
    expect(misplaced.body.errors).toEqual([
      {
        path: '/body/readings/0/unit',
        message: expect.stringContaining('dehumidifier_inlet or dehumidifier_exhaust'),
      },
    ]);
    const wrong = await readings({
      rows: [mover.id, 'DH-11', 'DH-99'].map((unit) => ({
        day: 2,
        area: 'Kitchen',
        readings: [{ metric: 'rh_pct', value: 40, location: 'dehumidifier_exhaust', unit }],
      })),
    }).expect(400);
    expect(
      wrong.body.errors.map((e: { path: string; message: string }) => [e.path, e.message.split(',')[0]]),
    ).toEqual([
      ['/body/rows/0/readings/0/unit', 'is not a dehumidifier (air_mover)'],
      ['/body/rows/1/readings/0/unit', 'is in Hall'],
      ['/body/rows/2/readings/0/unit', "is no unit of this log (a dehumidifier's id or asset tag"],
    ]);
    // Read the day it was placed: on site.
    await readings({
      date: job.start,
      area: 'Hall',
      readings: [{ metric: 'rh_pct', value: 40, location: 'dehumidifier_exhaust', unit: 'DH-11' }],
    }).expect(201);
    expect((await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body.reading_count).toBe(9);
  });

  it('refuses dates after today, removals before placement, units removed twice and ids of other jobs', async () => {
    const job = await jobWithLog();
    const unit = (
      await place(job.id, { area: 'Kitchen', day: 3, units: [{ kind: 'air_mover' }] }).expect(201)
    ).body.placed[0];
    const tomorrow = await place(job.id, {
      area: 'Kitchen',
      date: dateOf(job.start, 6),
      units: [{ kind: 'air_mover' }],
    }).expect(422);
    expect(tomorrow.body).toMatchObject({ code: 'date_in_future', errors: [{ path: '/body/date' }] });
    expect(
      (await place(job.id, { area: 'Kitchen', day: 9, units: [{ kind: 'air_mover' }] }).expect(422)).body
        .errors,
    ).toEqual([expect.objectContaining({ path: '/body/day' })]);
    expect((await remove(job.id, { equipment_ids: [unit.id], day: 6 }).expect(422)).body.code).toBe(
      'date_in_future',
    );
    expect(
      (
        await place(job.id, {
          area: 'Kitchen',
          date: dateOf(job.start, 0),
          units: [{ kind: 'air_mover' }],
        }).expect(400)
      ).body.errors[0].path,
    ).toBe('/body/date');
    expect((await remove(job.id, { equipment_ids: [unit.id], day: 2 }).expect(400)).body.errors).toEqual([
      { path: '/body/equipment_ids/0', message: expect.stringContaining('placed on') },
    ]);
    await remove(job.id, { equipment_ids: [unit.id] }).expect(200);
    expect((await remove(job.id, { equipment_ids: [unit.id] }).expect(409)).body.code).toBe('invalid_state');
    const elsewhere = await jobWithLog();
    const theirs = (await place(elsewhere.id, { area: 'Hall', units: [{ kind: 'heater' }] }).expect(201)).body
      .placed[0];
    expect((await remove(job.id, { equipment_ids: [theirs.id] }).expect(404)).body.detail).toContain(
      theirs.id,
    );
    // Nothing refused was saved.
    expect((await logOf(job.id)).equipment.units.map((u) => u.id)).toEqual([unit.id]);
  });

  it("refuses bad bodies, unknown areas, a job without a log, read keys and other companies' jobs", async () => {
    const job = await jobWithLog();
    for (const body of [
      { area: 'Kitchen', units: [] },
      { area: 'Kitchen', units: [{ kind: 'fan' }] },
      { area: 'Kitchen', units: [{ kind: 'air_mover', count: 0 }] },
      { area: 'Kitchen', units: [{ kind: 'air_mover', dehumidifier_type: 'lgr' }] },
      { area: 'Kitchen', units: [{ kind: 'air_scrubber', pints_per_day: 70 }] },
      { area: 'Kitchen', units: [{ kind: 'air_mover', count: 2, asset_tag: 'AM-1' }] },
      {
        area: 'Kitchen',
        units: [
          { kind: 'air_mover', count: 30 },
          { kind: 'air_mover', count: 30 },
        ],
      },
      { area: 'Kitchen', units: [{ kind: 'air_mover' }], day: '3' },
      { area: 'Kitchen', units: [{ kind: 'air_mover', colour: 'blue' }] },
    ]) {
      expect((await place(job.id, body).expect(400)).body.code).toBe('invalid_request');
    }
    expect(
      (await place(job.id, { area: 'Attic', units: [{ kind: 'air_mover' }] }).expect(422)).body,
    ).toMatchObject({ code: 'unknown_area', valid_values: ['Kitchen', 'Hall'] });
    await remove(job.id, { equipment_ids: [] }).expect(400);
    const bare = (
      await write().post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'No Log' }).expect(201)
    ).body;
    expect(
      (await place(bare.id, { area: 'Kitchen', units: [{ kind: 'air_mover' }] }).expect(404)).body.detail,
    ).toContain('no drying log');
    expect(
      (
        await read()
          .post(equipmentOf(job.id))
          .send({ operation_id: opId(), area: 'Kitchen', units: [{ kind: 'air_mover' }] })
          .expect(403)
      ).body.code,
    ).toBe('write_key_required');
    const theirs = await jobWithLog(other);
    await place(theirs.id, { area: 'Kitchen', units: [{ kind: 'air_mover' }] }).expect(404);
    await remove(theirs.id, { equipment_ids: ['eqp_000000000000'] }).expect(404);
    expect((await logOf(job.id)).equipment.units).toEqual([]);
  });

  it('replays an operation_id, refuses it with other details, and undo takes placements and removals back', async () => {
    const job = await jobWithLog();
    const body = { operation_id: opId(), area: 'Kitchen', day: 2, units: [{ kind: 'air_mover', count: 2 }] };
    const first = await write().post(equipmentOf(job.id)).send(body).expect(201);
    const again = await write().post(equipmentOf(job.id)).send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(
      (
        await write()
          .post(equipmentOf(job.id))
          .send({ ...body, day: 3 })
          .expect(409)
      ).body.code,
    ).toBe('operation_id_conflict');
    expect((await logOf(job.id)).equipment.units).toHaveLength(2);

    const [unit] = first.body.placed;
    await remove(job.id, { equipment_ids: [unit.id], day: 4 }).expect(200);
    const undone = (await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200)).body;
    expect(undone.undone).toMatchObject({
      tool: 'remove_equipment',
      summary: expect.stringContaining('removed'),
    });
    expect((await logOf(job.id)).equipment).toMatchObject({ on_site: 2 });
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await logOf(job.id)).equipment.units).toEqual([]);
  });

  it('works over MCP', async () => {
    const job = await jobWithLog();
    const client = await connectMcp(t, co.writeKey);
    try {
      const placed = await callTool(client, 'place_equipment', {
        job_id: job.id,
        operation_id: opId(),
        area: 'Hall',
        units: [{ kind: 'dehumidifier', dehumidifier_type: 'conventional', pints_per_day: 70 }],
      });
      expect(placed.isError).toBeFalsy();
      const unit = (placed.structuredContent as EquipmentPlaced).placed[0];
      const removed = await callTool(client, 'remove_equipment', {
        job_id: job.id,
        operation_id: opId(),
        equipment_ids: [unit.id],
      });
      expect(removed.structuredContent).toMatchObject({ removed: [{ id: unit.id, days_on_site: 1 }] });
      const future = await callTool(client, 'place_equipment', {
        job_id: job.id,
        operation_id: opId(),
        area: 'Hall',
        date: dateOf(job.start, 7),
        units: [{ kind: 'heater' }],
      });
      expect(problemOf(future)).toMatchObject({ status: 422, code: 'date_in_future' });
    } finally {
      await client.close();
    }
  });
});
