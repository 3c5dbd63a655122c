/**
 * src/domain/drying/drying-status.ts: what get_drying_log derives from a log's rows, by the
 * rules the spec states for it — dry goals in their order, the day an area reads dry and stays
 * so, the log as of a day, air conditions, grain depression and its warning, the pressure of the
 * log's elevation, the days of the plan with skipped days, and equipment billed past the dry day.
 * Logs are built here as rows, with no database.
 */
import {
  toDryingLog,
  withBilledWarnings,
  type DryingLogWithoutEquipment,
} from '../../src/domain/drying/drying-status';
import type {
  AreaRow,
  BilledLine,
  DryingRecord,
  ReadingRow,
  SkipRow,
} from '../../src/domain/drying/drying-records';
import type { ReadingLocation, StoredMetric } from '../../src/domain/drying/metrics';

const START = '2026-03-02';
const RECORDED_AT = new Date('2026-03-02T15:00:00Z');

interface Read {
  day: number;
  area: string | null;
  metric: StoredMetric;
  value: number;
  location?: ReadingLocation;
  point?: string;
  reference?: boolean;
}

interface LogParts {
  areas?: string[];
  readings?: Read[];
  skips?: { day: number; area: string | null }[];
  plannedDays?: number;
  areaPlans?: Record<string, number>;
  elevationFt?: number | null;
  companyElevationFt?: number;
  today?: string;
}

const areaId = (name: string): string => `area_${name.toLowerCase()}`;

/** A log as its rows: areas by name, readings in the order given (by day, as the database reads them). */
function record(parts: LogParts = {}): DryingRecord {
  const names = parts.areas ?? ['Kitchen', 'Hall'];
  const areas: AreaRow[] = names.map((name, position) => ({
    id: areaId(name),
    name,
    planned_days: parts.areaPlans?.[name] ?? null,
    position,
  }));
  const readings: ReadingRow[] = (parts.readings ?? []).map((r, i) => ({
    id: `rd_${i}`,
    area_id: r.area === null ? null : areaId(r.area),
    day: r.day,
    location: r.location ?? 'affected',
    metric: r.metric,
    value_x100: Math.round(r.value * 100),
    point: r.point ?? null,
    reference: r.reference ?? false,
    source_of_values: 'dictated_by_user',
    recorded_by: 'per_avery',
    recorded_by_name: 'Avery Stone',
    equipment_id: null,
    meter: null,
    on_site_by: null,
    on_site_by_name: null,
    recorded_at: RECORDED_AT,
  }));
  const skips: SkipRow[] = (parts.skips ?? []).map((s, i) => ({
    id: `skip_${i}`,
    area_id: s.area === null ? null : areaId(s.area),
    day: s.day,
    reason: null,
  }));
  return {
    job: { id: 'job_1', job_number: 16 },
    log: {
      id: 'dry_1',
      job_id: 'job_1',
      start_date: START,
      planned_days: parts.plannedDays ?? 3,
      estimate_id: null,
      elevation_ft: parts.elevationFt === undefined ? null : parts.elevationFt,
      company_elevation_ft: parts.companyElevationFt ?? 0,
      today: parts.today ?? START,
      version: 1,
      revision: '1',
      areas,
      credits: 5,
    },
    areas,
    readings,
    notes: [],
    skips,
  };
}

const areaOf = (log: DryingLogWithoutEquipment, name: string) => {
  const area = log.areas.find((a) => a.name === name);
  if (!area) throw new Error(`no area ${name}`);
  return area;
};

describe('dry goals', () => {
  it('come from the area reference, else the building unaffected reading, else the default for the material', () => {
    const log = toDryingLog(
      record({
        readings: [
          { day: 1, area: 'Kitchen', metric: 'drywall', value: 11, reference: true },
          { day: 1, area: null, metric: 'drywall', value: 13, location: 'unaffected' },
          { day: 1, area: null, metric: 'wood', value: 12, location: 'unaffected' },
          { day: 1, area: 'Kitchen', metric: 'drywall', value: 12 },
          { day: 1, area: 'Hall', metric: 'drywall', value: 12 },
          { day: 1, area: 'Hall', metric: 'concrete', value: 3 },
          { day: 1, area: 'Hall', metric: 'cabinet', value: 15 },
          { day: 1, area: 'Hall', metric: 'ceiling_tile', value: 17.5 },
        ],
      }),
    );
    const goals = (name: string) =>
      areaOf(log, name).materials.map((m) => [m.metric, m.goal, m.goal_source, m.dry]);
    expect(goals('Kitchen')).toEqual([['drywall', 11, 'area_reference', false]]);
    expect(goals('Hall')).toEqual([
      ['drywall', 13, 'unaffected_reference', true],
      ['concrete', 4, 'default', true],
      // At the goal is dry; the defaults are the spec's: cabinet 15, ceiling tile 17.
      ['cabinet', 15, 'default', true],
      ['ceiling_tile', 17, 'default', false],
    ]);
  });

  it('use the latest reference, count an unaffected reading in the area as its reference, and never list references as materials', () => {
    const log = toDryingLog(
      record({
        readings: [
          { day: 1, area: 'Kitchen', metric: 'wood', value: 10, reference: true },
          { day: 1, area: 'Kitchen', metric: 'wood', value: 13 },
          { day: 2, area: 'Kitchen', metric: 'wood', value: 14, reference: true },
          { day: 1, area: 'Hall', metric: 'wood', value: 9, location: 'unaffected' },
          { day: 1, area: 'Hall', metric: 'wood', value: 9.5 },
        ],
      }),
    );
    expect(areaOf(log, 'Kitchen').materials.map((m) => [m.value, m.goal, m.goal_source, m.dry])).toEqual([
      [13, 14, 'area_reference', true],
    ]);
    expect(areaOf(log, 'Hall').materials.map((m) => [m.value, m.goal, m.goal_source, m.dry])).toEqual([
      [9.5, 9, 'area_reference', false],
    ]);
  });
});

describe('the dry day', () => {
  it('is the first day from which every material point of the area is at or below its goal, as long as it stays so', () => {
    const log = toDryingLog(
      record({
        readings: [
          { day: 1, area: 'Kitchen', metric: 'drywall', value: 30, point: 'north wall' },
          { day: 1, area: 'Kitchen', metric: 'drywall', value: 16, point: 'east wall' },
          { day: 2, area: 'Kitchen', metric: 'drywall', value: 17, point: 'north wall' },
          { day: 3, area: 'Kitchen', metric: 'drywall', value: 18, point: 'east wall' },
          { day: 4, area: 'Kitchen', metric: 'drywall', value: 15, point: 'east wall' },
          { day: 1, area: 'Hall', metric: 'wood', value: 14 },
          { day: 2, area: 'Hall', metric: 'wood', value: 14 },
        ],
      }),
    );
    // Kitchen: dry on day 2 (both points at or below 17), wet again on day 3, dry from day 4.
    expect([areaOf(log, 'Kitchen').dry, areaOf(log, 'Kitchen').dry_day]).toEqual([true, 4]);
    expect(areaOf(log, 'Kitchen').materials.map((m) => [m.point, m.day, m.value])).toEqual([
      ['north wall', 2, 17],
      ['east wall', 4, 15],
    ]);
    expect([areaOf(log, 'Hall').dry, areaOf(log, 'Hall').dry_day]).toEqual([true, 1]);
    expect(log.wet_areas).toEqual([]);
  });

  it('is null, and the area wet, before any material reading or while one point is wet', () => {
    const log = toDryingLog(
      record({
        readings: [
          { day: 1, area: 'Kitchen', metric: 'temp_f', value: 70 },
          { day: 1, area: 'Kitchen', metric: 'rh_pct', value: 50 },
          { day: 1, area: 'Hall', metric: 'drywall', value: 10, point: 'a' },
          { day: 2, area: 'Hall', metric: 'drywall', value: 40, point: 'b' },
        ],
      }),
    );
    expect([areaOf(log, 'Kitchen').dry, areaOf(log, 'Kitchen').dry_day]).toEqual([false, null]);
    expect([areaOf(log, 'Hall').dry, areaOf(log, 'Hall').dry_day]).toEqual([false, null]);
    expect(log.wet_areas).toEqual(['Kitchen', 'Hall']);
  });

  it('is computed as the log stood on to_day: later readings are left out of every figure', () => {
    const parts: LogParts = {
      readings: [
        { day: 1, area: 'Kitchen', metric: 'wood', value: 25 },
        { day: 2, area: 'Kitchen', metric: 'wood', value: 20 },
        { day: 3, area: 'Kitchen', metric: 'wood', value: 14 },
        { day: 3, area: 'Kitchen', metric: 'wood', value: 30, reference: true },
      ],
    };
    const now = toDryingLog(record(parts));
    const dayTwo = toDryingLog(record(parts), { detail: 'readings', toDay: 2 });
    expect(areaOf(now, 'Kitchen')).toMatchObject({ dry: true, dry_day: 1, latest_day: 3 });
    expect(areaOf(dayTwo, 'Kitchen')).toMatchObject({ dry: false, dry_day: null, latest_day: 2 });
    expect(areaOf(dayTwo, 'Kitchen').materials).toEqual([
      expect.objectContaining({ day: 2, value: 20, goal: 15, goal_source: 'default' }),
    ]);
    expect(dayTwo.reading_count).toBe(2);
    expect(dayTwo.readings!.map((r) => r.day)).toEqual([1, 2]);
  });
});

describe('air', () => {
  it('gives GPP and dew point to one decimal and vapour pressure to three, from the latest temperature and RH of a place and day', () => {
    const log = toDryingLog(
      record({
        readings: [
          { day: 1, area: 'Kitchen', metric: 'temp_f', value: 60 },
          { day: 1, area: 'Kitchen', metric: 'temp_f', value: 70 },
          { day: 1, area: 'Kitchen', metric: 'rh_pct', value: 50 },
          { day: 2, area: 'Kitchen', metric: 'temp_f', value: 72 },
          { day: 1, area: null, metric: 'temp_f', value: 40, location: 'outside' },
          { day: 1, area: null, metric: 'rh_pct', value: 80, location: 'outside' },
        ],
      }),
      { detail: 'readings' },
    );
    expect(log.conditions).toEqual([
      {
        area: 'Kitchen',
        day: 1,
        location: 'affected',
        temp_f: 70,
        rh_pct: 50,
        gpp: 54.7,
        dew_point_f: 50.5,
        vapor_pressure_inhg: 0.371,
      },
      {
        area: 'Kitchen',
        day: 2,
        location: 'affected',
        temp_f: 72,
        rh_pct: null,
        gpp: null,
        dew_point_f: null,
        vapor_pressure_inhg: null,
      },
      expect.objectContaining({ area: null, location: 'outside', temp_f: 40, rh_pct: 80 }),
    ]);
    // The area's air is the latest with both values; the building's outside air has no area.
    expect(areaOf(log, 'Kitchen').air).toMatchObject({ day: 1, gpp: 54.7 });
    expect(log.building.outside).toMatchObject({ temp_f: 40, rh_pct: 80, area: null });
    expect(log.building.unaffected).toBeNull();
  });

  it('subtracts the exhaust GPP from the room GPP per day; a negative grain depression is a warning', () => {
    const air = (day: number, location: ReadingLocation, temp: number, rh: number): Read[] => [
      { day, area: 'Kitchen', metric: 'temp_f', value: temp, location },
      { day, area: 'Kitchen', metric: 'rh_pct', value: rh, location },
    ];
    const log = toDryingLog(
      record({
        readings: [
          ...air(1, 'affected', 75, 40),
          ...air(1, 'dehumidifier_exhaust', 80, 60),
          ...air(2, 'affected', 75, 60),
          ...air(2, 'dehumidifier_exhaust', 95, 20),
        ],
      }),
      { detail: 'readings' },
    );
    const [dayOne, dayTwo] = log.grain_depression!;
    expect(dayOne).toMatchObject({ area: 'Kitchen', day: 1 });
    expect(dayOne.value).toBeLessThan(0);
    expect(dayTwo.value).toBeGreaterThan(0);
    const gpp = (day: number, location: ReadingLocation) =>
      log.conditions!.find((c) => c.day === day && c.location === location)!.gpp!;
    expect(dayTwo.value).toBeCloseTo(gpp(2, 'affected') - gpp(2, 'dehumidifier_exhaust'), 1);
    expect(areaOf(log, 'Kitchen').grain_depression).toBe(dayTwo.value);
    expect(log.warnings).toEqual([
      expect.objectContaining({ code: 'negative_grain_depression', area: 'Kitchen', day: 1 }),
    ]);
  });

  it("is computed at the pressure of the log's elevation, else the company's", () => {
    const air: Read[] = [
      { day: 1, area: 'Kitchen', metric: 'temp_f', value: 70 },
      { day: 1, area: 'Kitchen', metric: 'rh_pct', value: 50 },
    ];
    const seaLevel = toDryingLog(record({ readings: air }));
    const own = toDryingLog(record({ readings: air, elevationFt: 5000, companyElevationFt: 1000 }));
    const company = toDryingLog(record({ readings: air, elevationFt: null, companyElevationFt: 5000 }));
    expect([seaLevel.elevation_ft, seaLevel.elevation_source, seaLevel.pressure_inhg]).toEqual([
      0,
      'company',
      29.92,
    ]);
    expect([own.elevation_ft, own.elevation_source, own.pressure_inhg]).toEqual([5000, 'log', 24.9]);
    expect([company.elevation_ft, company.elevation_source, company.pressure_inhg]).toEqual([
      5000,
      'company',
      24.9,
    ]);
    expect(areaOf(own, 'Kitchen').air!.gpp).toBe(areaOf(company, 'Kitchen').air!.gpp);
    expect(areaOf(own, 'Kitchen').air!.gpp! / areaOf(seaLevel, 'Kitchen').air!.gpp!).toBeCloseTo(1.2, 1);
  });
});

describe('days', () => {
  it('runs from the start date through the plan (or a later reading), marking skipped days and areas', () => {
    const log = toDryingLog(
      record({
        plannedDays: 3,
        today: '2026-03-04',
        readings: [
          { day: 2, area: 'Kitchen', metric: 'wood', value: 20 },
          { day: 5, area: 'Hall', metric: 'wood', value: 20 },
        ],
        skips: [
          { day: 2, area: null },
          { day: 3, area: 'Hall' },
          { day: 4, area: 'Kitchen' },
          { day: 4, area: 'Hall' },
        ],
      }),
      { detail: 'readings' },
    );
    expect({ start: log.start_date, end: log.end_date, today: log.today_day }).toEqual({
      start: START,
      end: '2026-03-04',
      today: 3,
    });
    expect(log.days.map((d) => [d.day, d.date, d.monitored, d.skipped_areas, d.readings])).toEqual([
      [1, '2026-03-02', true, [], 0],
      [2, '2026-03-03', false, ['Kitchen', 'Hall'], 1],
      [3, '2026-03-04', true, ['Hall'], 0],
      [4, '2026-03-05', false, ['Kitchen', 'Hall'], 0],
      [5, '2026-03-06', true, [], 1],
    ]);
    expect(log.readings!.map((r) => [r.day, r.on_skipped_day])).toEqual([
      [2, true],
      [5, false],
    ]);
  });

  it('follows the longest area plan, and narrows to one area and a range of days', () => {
    const log = toDryingLog(
      record({
        plannedDays: 2,
        areaPlans: { Hall: 4 },
        readings: [1, 2, 3, 4].flatMap((day): Read[] => [
          { day, area: 'Kitchen', metric: 'drywall', value: 20 - day },
          { day, area: 'Hall', metric: 'drywall', value: 30 - day },
        ]),
      }),
      { detail: 'readings', area: ' hall ', fromDay: 2, toDay: 3 },
    );
    expect(log.areas.map((a) => [a.name, a.planned_days, a.own_planned_days])).toEqual([['Hall', 4, 4]]);
    expect(log.days.map((d) => d.day)).toEqual([2, 3]);
    expect(log.readings!.map((r) => [r.area, r.day])).toEqual([
      ['Hall', 2],
      ['Hall', 3],
    ]);
    expect(log.reading_count).toBe(2);
    expect(log.wet_areas).toEqual(['Hall']);
  });
});

describe('equipment billed past the dry day', () => {
  const dryOnDayTwo = () =>
    toDryingLog(
      record({
        readings: [
          { day: 1, area: 'Kitchen', metric: 'drywall', value: 30 },
          { day: 2, area: 'Kitchen', metric: 'drywall', value: 12 },
          { day: 1, area: 'Hall', metric: 'drywall', value: 30 },
        ],
      }),
    );
  const line = (room: string, days: number, id: string): BilledLine => ({
    estimate_id: 'est_1',
    line_id: id,
    room,
    drying_days: days,
    code: null,
    unit_days_x100: 0,
  });

  it("warns of each day-billed line of a dry area's room billed for more days than it took", () => {
    const log = withBilledWarnings(dryOnDayTwo(), [
      line('kitchen', 5, 'line_a'),
      line('Kitchen', 2, 'line_b'),
      line('Hall', 9, 'line_c'),
      line('Bath', 9, 'line_d'),
    ]);
    expect(log.warnings).toEqual([
      expect.objectContaining({
        code: 'billed_past_dry',
        area: 'Kitchen',
        day: 2,
        estimate_id: 'est_1',
        line_id: 'line_a',
        billed_days: 5,
        dry_day: 2,
      }),
    ]);
  });

  it('leaves a log with nothing billed past its dry days as it is', () => {
    const log = dryOnDayTwo();
    expect(withBilledWarnings(log, [line('Kitchen', 2, 'line_b')])).toBe(log);
    expect(withBilledWarnings(log, [])).toBe(log);
  });
});
