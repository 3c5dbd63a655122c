/**
 * The rules of an add_drying_readings request, before anything is read from the database: its
 * rows (the body's own and `rows`, each with the body's defaults), the checks of every reading,
 * days after today, a new log's start date, and whether a named dehumidifier fits a reading.
 * Pure functions: the handler and the unit tests call them alike.
 */
import type { components } from '../../../sdk/src/schema';
import { ApiError, invalidRequest, type FieldError } from '../../platform/errors';
import type { JsonBodyOf } from '../../platform/handler';
import { toHundredths } from '../../platform/money';
import { dateInFuture, futureDayError, resolveDay } from './days';
import { dateOfDay } from './drying-records';
import type { EquipmentRow } from './equipment';
import { isMaterial, rangeOf, stored, type ReadingLocation, type StoredMetric } from './metrics';

export type ReadingsBody = JsonBodyOf<'add_drying_readings'>;
type ReadingInput = components['schemas']['ReadingInput'];
type SourceOfValues = components['schemas']['SourceOfValues'];

/** At most this many readings in one request. */
export const MAX_READINGS = 2000;
/** Air read outside or in an unaffected place may belong to the building rather than an area. */
const BUILDING_LOCATIONS: ReadingLocation[] = ['outside', 'unaffected'];
/** Where a reading may name its dehumidifier. */
const UNIT_LOCATIONS: ReadingLocation[] = ['dehumidifier_inlet', 'dehumidifier_exhaust'];

/** One row of readings (one area and day) with its path in the body and the body's defaults applied. */
export interface RequestRow {
  path: string;
  day?: number;
  date?: string;
  area?: string;
  location?: ReadingLocation;
  source?: SourceOfValues;
  readings: ReadingInput[];
}

/** One reading as checked: where it goes and what is stored. */
export interface CheckedReading {
  areaName: string | null;
  day: number;
  location: ReadingLocation;
  metric: StoredMetric;
  valueX100: number;
  point: string | null;
  reference: boolean;
  /** The dehumidifier named (id or asset tag), as given; resolved once the log's units are read. */
  unit: string | null;
  meter: string | null;
  /** Its path in the body, for errors. */
  at: string;
  source: SourceOfValues;
}

/** The body's own row (readings in the body) and its `rows`, each with its path and the body's defaults. */
export function rowsOf(body: ReadingsBody): RequestRow[] {
  const defaults = {
    day: body.day,
    date: body.date,
    area: body.area,
    location: body.location,
    source: body.source_of_values,
  };
  const rows: RequestRow[] = [];
  if (body.readings) rows.push({ path: '/body', ...defaults, readings: body.readings });
  for (const [i, row] of (body.rows ?? []).entries()) {
    const hasDay = row.day !== undefined || row.date !== undefined;
    rows.push({
      path: `/body/rows/${i}`,
      day: hasDay ? row.day : defaults.day,
      date: hasDay ? row.date : defaults.date,
      area: row.area ?? defaults.area,
      location: row.location ?? defaults.location,
      source: row.source_of_values ?? defaults.source,
      readings: row.readings,
    });
  }
  return rows;
}

/** The materials the rows read (as stored), whose dry goals the answer gives. */
export function materialsOf(rows: RequestRow[]): string[] {
  const metrics = rows.flatMap((row) => row.readings.map((r) => stored(r.metric, r.value).metric));
  return [...new Set(metrics.filter(isMaterial))];
}

/** Checks the whole request before anything is saved: a 400 naming every bad row and reading. */
export function checkReadings(rows: RequestRow[], startDate: string): CheckedReading[] {
  const { checked, errors } = readRows(rows, startDate);
  if (errors.length) throw invalidRequest(errors);
  return checked;
}

/** The fields of the body that every row takes as its defaults. */
const DEFAULT_FIELDS = ['day', 'date', 'area', 'location', 'source_of_values'];

/**
 * What the rules find wrong in the rows of a body that fails the spec, beside the spec's own
 * errors (`specErrors`), so that one 400 names every bad row whatever the mix. Only rows the spec
 * check passed are read (none when the body's defaults fail it); their dates are not held against
 * the log's start date, which only the database knows.
 */
export function rowErrorsBeside(body: unknown, specErrors: FieldError[]): FieldError[] {
  const failed = (path: string) => specErrors.some((e) => e.path === path || e.path.startsWith(`${path}/`));
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const sent = body as Record<string, unknown>;
  if (failed('/body/rows') && !Array.isArray(sent.rows)) return [];
  if (DEFAULT_FIELDS.some((field) => failed(`/body/${field}`))) return [];
  // A bad row keeps its place (its index names it) but is read as no row at all.
  const readable = {
    ...sent,
    readings: failed('/body/readings') ? undefined : sent.readings,
    rows: Array.isArray(sent.rows)
      ? sent.rows.map((row, i) => (failed(`/body/rows/${i}`) ? { readings: [] } : row))
      : undefined,
  } as ReadingsBody;
  const rows = rowsOf(readable).filter((row) => row.readings.length > 0);
  return rows.length > 0 ? readRows(rows, null).errors : [];
}

function readRows(
  rows: RequestRow[],
  startDate: string | null,
): { checked: CheckedReading[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const checked: CheckedReading[] = [];
  if (rows.length === 0)
    errors.push({ path: '/body/readings', message: 'send readings (one area and day) or rows' });
  const count = rows.reduce((sum, row) => sum + row.readings.length, 0);
  if (count > MAX_READINGS)
    errors.push({
      path: '/body/rows',
      message: `holds ${count} readings; at most ${MAX_READINGS} in one request`,
    });

  for (const row of rows) {
    const day = dayOfRow(row, startDate, errors);
    for (const [j, reading] of row.readings.entries()) {
      const at = `${row.path}/readings/${j}`;
      const location = reading.location ?? row.location ?? 'affected';
      errors.push(...readingErrors(row, reading, location, at));
      if (day === null) continue;
      const value = stored(reading.metric, reading.value);
      checked.push({
        areaName: row.area?.trim() ?? null,
        day,
        location,
        metric: value.metric,
        valueX100: toHundredths(value.value),
        point: reading.point?.trim() ?? null,
        reference: reading.reference ?? false,
        unit: reading.unit?.trim() ?? null,
        meter: reading.meter?.trim() ?? null,
        at,
        source: row.source ?? 'dictated_by_user',
      });
    }
  }
  // An area is named once per row, however many of its readings lack it.
  return {
    checked,
    errors: errors.filter(
      (e, i) => errors.findIndex((o) => o.path === e.path && o.message === e.message) === i,
    ),
  };
}

/** What is wrong with one reading of a row: its value's range, a missing area, a misplaced reference or unit. */
function readingErrors(
  row: RequestRow,
  reading: ReadingInput,
  location: ReadingLocation,
  at: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const range = rangeOf(reading.metric);
  if (reading.value < range.min || reading.value > range.max)
    errors.push({
      path: `${at}/value`,
      message: `${reading.metric} must be between ${range.min} and ${range.max}${range.unit}`,
    });
  if (!row.area && !BUILDING_LOCATIONS.includes(location))
    errors.push({
      path: `${row.path}/area`,
      message: `is required for ${location} readings (only outside and unaffected readings may have no area)`,
    });
  const metric = stored(reading.metric, reading.value).metric;
  if (reading.reference && (metric === 'temp_f' || metric === 'rh_pct'))
    errors.push({
      path: `${at}/reference`,
      message: 'marks a material reading as the dry goal; air readings cannot be references',
    });
  if (reading.unit !== undefined && !UNIT_LOCATIONS.includes(location))
    errors.push({
      path: `${at}/unit`,
      message: `names a dehumidifier; give it with location ${UNIT_LOCATIONS.join(' or ')}`,
    });
  return errors;
}

/** The row's day; without the start date, a row given by its date has none yet (and no error). */
function dayOfRow(row: RequestRow, startDate: string | null, errors: FieldError[]): number | null {
  if (startDate === null && row.date !== undefined) return null;
  const { day, error } =
    startDate === null ? { day: row.day ?? null, error: null } : resolveDay(row, startDate, row.path);
  if (error) errors.push(error);
  else if (day === null) errors.push({ path: `${row.path}/day`, message: 'give the day number or the date' });
  return day;
}

/** 422 naming each row whose day is after today: readings record what was read on site. */
export function refuseFutureRows(rows: RequestRow[], startDate: string, today: string): void {
  const errors = rows.flatMap((row) => {
    const { day } = resolveDay(row, startDate, row.path);
    const field = `${row.path}/${row.date !== undefined ? 'date' : 'day'}`;
    const error = day === null ? null : futureDayError(day, startDate, today, field);
    return error ? [error] : [];
  });
  if (errors.length) throw dateInFuture(errors, today);
}

/** Whether a reading is the building's rather than a wet area's: outside or unaffected air or material, or a reference. */
function isBuildingReading(row: RequestRow, reading: ReadingInput): boolean {
  return (
    BUILDING_LOCATIONS.includes(reading.location ?? row.location ?? 'affected') || reading.reference === true
  );
}

/**
 * 422 `unknown_area` naming each row of building readings only (outside, unaffected, references)
 * whose area is neither on the log nor added by another row of the request: such readings never
 * make a drying area nor an estimate room. In an area the log has they are that area's own.
 */
export function refuseBuildingRowsInNewAreas(rows: RequestRow[], logAreas: string[]): void {
  const buildingOnly = (row: RequestRow) => row.readings.every((reading) => isBuildingReading(row, reading));
  const known = new Set(
    [...logAreas, ...rows.filter((row) => !buildingOnly(row)).map((row) => row.area ?? '')].map((name) =>
      name.trim().toLowerCase(),
    ),
  );
  const errors = rows
    .filter((row) => row.area !== undefined && buildingOnly(row) && !known.has(row.area.trim().toLowerCase()))
    .map((row) => ({
      path: `${row.path}/area`,
      message: `${row.area!.trim()} is no area of this drying log; outside, unaffected and reference readings never add one: send the building's without area, or name an area the log has for that area's own`,
    }));
  if (errors.length)
    throw new ApiError(
      422,
      'unknown_area',
      `Outside, unaffected and reference readings never add a drying area: send the building's without \`area\` (\`errors\` names each row; \`valid_values\` lists the log's areas).`,
      { errors, validValues: logAreas },
    );
}

/** A new log's start: the earliest date the rows name, if before today (a date is `YYYY-MM-DD`, so text orders it). */
export function earliestDate(rows: RequestRow[], today: string): string {
  return rows.reduce(
    (earliest, row) => (row.date !== undefined && row.date < earliest ? row.date : earliest),
    today,
  );
}

/** The areas the readings name, each once, as first written. */
export function areaNamesOf(readings: CheckedReading[]): string[] {
  return [...new Set(readings.map((r) => r.areaName).filter((name): name is string => name !== null))];
}

/** The last day read in an area (0 when none), names matched without regard to case. */
export function lastDayIn(readings: CheckedReading[], areaName: string): number {
  const wanted = areaName.toLowerCase();
  return Math.max(0, ...readings.filter((r) => r.areaName?.toLowerCase() === wanted).map((r) => r.day));
}

/** The unit a reading names, by id or asset tag (any case), among the log's units. */
export function findUnit(units: EquipmentRow[], named: string): EquipmentRow | undefined {
  const wanted = named.toLowerCase();
  return units.find((u) => u.id === named || u.asset_tag?.toLowerCase() === wanted);
}

/**
 * Why the unit a reading names cannot be its dehumidifier (null when it can): it must be a
 * dehumidifier of the reading's area, on site that day (the day it was removed included).
 */
export function unitProblem(
  unit: EquipmentRow | undefined,
  reading: Pick<CheckedReading, 'areaName' | 'day'>,
  startDate: string,
): string | null {
  if (!unit) return `is no unit of this log (a dehumidifier's id or asset tag, from get_drying_log)`;
  if (unit.kind !== 'dehumidifier') return `is not a dehumidifier (${unit.kind})`;
  if (reading.areaName === null || unit.area.toLowerCase() !== reading.areaName.toLowerCase())
    return `is in ${unit.area}, not in ${reading.areaName ?? 'no area'}`;
  const date = dateOfDay(startDate, reading.day);
  if (unit.placed_on > date || (unit.removed_on !== null && unit.removed_on < date))
    return `was not on site on ${date} (placed ${unit.placed_on}${unit.removed_on ? `, removed ${unit.removed_on}` : ''})`;
  return null;
}
