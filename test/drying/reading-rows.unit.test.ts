/**
 * src/domain/drying/reading-rows.ts: the rules of an add_drying_readings request before anything
 * is read — rows with the body's defaults, every reading's checks (named by path), days after
 * today, a new log's start date, and whether a named dehumidifier fits a reading. No database.
 */
import { ApiError } from '../../src/platform/errors';
import type { EquipmentRow } from '../../src/domain/drying/equipment';
import {
  areaNamesOf,
  checkReadings,
  earliestDate,
  findUnit,
  lastDayIn,
  materialsOf,
  MAX_READINGS,
  refuseFutureRows,
  rowsOf,
  unitProblem,
  type ReadingsBody,
  type RequestRow,
} from '../../src/domain/drying/reading-rows';

const START = '2026-03-02';

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

function paths(error: ApiError): string[] {
  return (error.extra.errors ?? []).map((e) => e.path);
}

describe('rowsOf', () => {
  it("gives the body's own row and each of rows the body's defaults, a row's day and date together", () => {
    const body = {
      operation_id: 'op',
      day: 2,
      area: 'Kitchen',
      source_of_values: 'read_from_log',
      readings: [{ metric: 'drywall', value: 30 }],
      rows: [
        { date: '2026-03-05', readings: [{ metric: 'wood', value: 20 }] },
        { area: 'Hall', location: 'outside', readings: [{ metric: 'rh_pct', value: 40 }] },
      ],
    } as ReadingsBody;
    expect(rowsOf(body)).toEqual([
      {
        path: '/body',
        day: 2,
        date: undefined,
        area: 'Kitchen',
        location: undefined,
        source: 'read_from_log',
        readings: body.readings,
      },
      {
        path: '/body/rows/0',
        day: undefined,
        date: '2026-03-05',
        area: 'Kitchen',
        location: undefined,
        source: 'read_from_log',
        readings: body.rows![0].readings,
      },
      {
        path: '/body/rows/1',
        day: 2,
        date: undefined,
        area: 'Hall',
        location: 'outside',
        source: 'read_from_log',
        readings: body.rows![1].readings,
      },
    ]);
  });

  it('materialsOf names each material read once, Celsius and air left out', () => {
    const rows = rowsOf({
      operation_id: 'op',
      day: 1,
      area: 'Kitchen',
      readings: [
        { metric: 'drywall', value: 30 },
        { metric: 'temp_c', value: 20 },
        { metric: 'rh_pct', value: 50 },
        { metric: 'drywall', value: 25 },
        { metric: 'wood', value: 19 },
      ],
    } as ReadingsBody);
    expect(materialsOf(rows)).toEqual(['drywall', 'wood']);
  });
});

describe('checkReadings', () => {
  const row = (over: Partial<RequestRow>, readings: RequestRow['readings']): RequestRow => ({
    path: '/body',
    day: 1,
    area: 'Kitchen',
    ...over,
    readings,
  });

  it('stores Celsius as Fahrenheit in hundredths, trims names, and fills the defaults', () => {
    const [reading] = checkReadings(
      [row({ area: ' Kitchen ' }, [{ metric: 'temp_c', value: 20, point: ' north wall ', meter: ' M1 ' }])],
      START,
    );
    expect(reading).toEqual({
      areaName: 'Kitchen',
      day: 1,
      location: 'affected',
      metric: 'temp_f',
      valueX100: 6800,
      point: 'north wall',
      reference: false,
      unit: null,
      meter: 'M1',
      at: '/body/readings/0',
      source: 'dictated_by_user',
    });
  });

  it('names every bad reading at once: range, area (once a row), reference on air, unit off a dehumidifier', () => {
    const error = refusal(() =>
      checkReadings(
        [
          row({}, [
            { metric: 'rh_pct', value: 101 },
            { metric: 'rh_pct', value: 50, reference: true },
            { metric: 'drywall', value: 20, unit: 'DH-1' },
          ]),
          row({ path: '/body/rows/0', area: undefined }, [
            { metric: 'drywall', value: 20 },
            { metric: 'wood', value: 20 },
          ]),
        ],
        START,
      ),
    );
    expect(error.status).toBe(400);
    expect(paths(error)).toEqual([
      '/body/readings/0/value',
      '/body/readings/1/reference',
      '/body/readings/2/unit',
      '/body/rows/0/area',
    ]);
  });

  it('outside and unaffected readings need no area; a unit goes with a dehumidifier location', () => {
    const checked = checkReadings(
      [
        row({ area: undefined, location: 'outside' }, [{ metric: 'temp_f', value: 50 }]),
        row({}, [{ metric: 'rh_pct', value: 30, location: 'dehumidifier_exhaust', unit: 'DH-1' }]),
      ],
      START,
    );
    expect(checked.map((r) => [r.areaName, r.location, r.unit])).toEqual([
      [null, 'outside', null],
      ['Kitchen', 'dehumidifier_exhaust', 'DH-1'],
    ]);
  });

  it('needs a day or a date, refuses a date before the start, and refuses no readings at all', () => {
    expect(
      paths(refusal(() => checkReadings([row({ day: undefined }, [{ metric: 'wood', value: 1 }])], START))),
    ).toEqual(['/body/day']);
    expect(
      paths(
        refusal(() =>
          checkReadings([row({ day: undefined, date: '2026-03-01' }, [{ metric: 'wood', value: 1 }])], START),
        ),
      ),
    ).toEqual(['/body/date']);
    expect(paths(refusal(() => checkReadings([], START)))).toEqual(['/body/readings']);
  });

  it(`takes ${MAX_READINGS} readings and refuses one more, naming /body/rows`, () => {
    const many = (n: number) => Array.from({ length: n }, () => ({ metric: 'wood' as const, value: 12 }));
    expect(checkReadings([row({}, many(MAX_READINGS))], START)).toHaveLength(MAX_READINGS);
    expect(paths(refusal(() => checkReadings([row({}, many(MAX_READINGS + 1))], START)))).toEqual([
      '/body/rows',
    ]);
  });
});

describe('days and dates', () => {
  it('refuseFutureRows answers 422 naming each row whose day is after today', () => {
    const rows = [
      { path: '/body', day: 3, readings: [] },
      { path: '/body/rows/0', date: '2026-03-09', readings: [] },
      { path: '/body/rows/1', day: 1, readings: [] },
    ];
    expect(() => refuseFutureRows(rows, START, '2026-03-09')).not.toThrow();
    const error = refusal(() => refuseFutureRows(rows, START, '2026-03-03'));
    expect(error.status).toBe(422);
    expect(paths(error)).toEqual(['/body/day', '/body/rows/0/date']);
  });

  it('earliestDate is the earliest date a row names, if before today', () => {
    const rows = [
      { path: '/body', date: '2026-03-05', readings: [] },
      { path: '/body/rows/0', date: '2026-02-27', readings: [] },
      { path: '/body/rows/1', day: 1, readings: [] },
    ];
    expect(earliestDate(rows, '2026-03-06')).toBe('2026-02-27');
    expect(earliestDate(rows.slice(2), '2026-03-06')).toBe('2026-03-06');
  });
});

describe('areas and units', () => {
  const checked = checkReadings(
    [
      { path: '/body', day: 4, area: 'Kitchen', readings: [{ metric: 'wood', value: 1 }] },
      { path: '/body/rows/0', day: 6, area: 'kitchen', readings: [{ metric: 'wood', value: 1 }] },
      { path: '/body/rows/1', day: 2, area: 'Hall', readings: [{ metric: 'wood', value: 1 }] },
    ],
    START,
  );

  it('areaNamesOf lists each name once as first written; lastDayIn matches names in any case', () => {
    expect(areaNamesOf(checked)).toEqual(['Kitchen', 'kitchen', 'Hall']);
    expect([lastDayIn(checked, 'KITCHEN'), lastDayIn(checked, 'Hall'), lastDayIn(checked, 'Bath')]).toEqual([
      6, 2, 0,
    ]);
  });

  const unit = (over: Partial<EquipmentRow>): EquipmentRow => ({
    id: 'eq_1',
    area_id: 'area_1',
    area: 'Kitchen',
    kind: 'dehumidifier',
    dehumidifier_type: 'lgr',
    pints_per_day: 70,
    asset_tag: 'DH-7',
    placed_on: '2026-03-02',
    removed_on: '2026-03-04',
    placed_by: 'per_1',
    placed_by_name: 'Ana',
    placed_on_site_by: null,
    placed_on_site_by_name: null,
    removed_on_site_by: null,
    removed_on_site_by_name: null,
    ...over,
  });

  it('findUnit finds a unit by id or by asset tag in any case', () => {
    const units = [unit({}), unit({ id: 'eq_2', asset_tag: null })];
    expect([findUnit(units, 'dh-7')?.id, findUnit(units, 'eq_2')?.id, findUnit(units, 'DH-8')]).toEqual([
      'eq_1',
      'eq_2',
      undefined,
    ]);
  });

  it('unitProblem: a dehumidifier of the reading area on site that day, the day it was removed included', () => {
    const kitchen = { areaName: 'kitchen', day: 3 };
    expect(unitProblem(unit({}), kitchen, START)).toBeNull();
    expect(unitProblem(unit({}), { areaName: 'Kitchen', day: 3 }, START)).toBeNull();
    expect(unitProblem(undefined, kitchen, START)).toMatch(/^is no unit of this log/);
    expect(unitProblem(unit({ kind: 'air_mover' }), kitchen, START)).toBe(
      'is not a dehumidifier (air_mover)',
    );
    expect(unitProblem(unit({}), { areaName: 'Hall', day: 3 }, START)).toBe('is in Kitchen, not in Hall');
    expect(unitProblem(unit({}), { areaName: null, day: 3 }, START)).toBe('is in Kitchen, not in no area');
    expect(unitProblem(unit({}), { areaName: 'Kitchen', day: 4 }, START)).toBe(
      'was not on site on 2026-03-05 (placed 2026-03-02, removed 2026-03-04)',
    );
    expect(unitProblem(unit({ placed_on: '2026-03-05', removed_on: null }), kitchen, START)).toBe(
      'was not on site on 2026-03-04 (placed 2026-03-05)',
    );
  });
});
