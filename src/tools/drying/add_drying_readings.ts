import type { components } from '../../../sdk/src/schema';
import { invalidRequest, type FieldError } from '../../platform/errors';
import { lockedJob, type BodyOf, type WriteContext, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { toHundredths } from '../../platform/money';
import { jobRefOf, type resolveJob } from '../../domain/jobs/job-records';
import {
  dateOfDay,
  findArea,
  findLogWithGoals,
  plannedDaysOf,
  todayOf,
  type AreaRow,
  type LogRow,
} from '../../domain/drying/drying-records';
import { loadEquipment } from '../../domain/drying/equipment';
import { airConditions, DryGoals, elevationOf, materialStatuses } from '../../domain/drying/drying-status';
import { dateInFuture, futureDayError, resolveDay } from '../../domain/drying/days';
import { doneBy, onSiteTeammate } from '../../domain/people/on-site';
import { followPlan } from '../../domain/drying/estimate-follow';
import { addMissingAreas, DEFAULT_PLANNED_DAYS, startLog } from '../../domain/drying/log-start';
import {
  isMaterial,
  rangeOf,
  stored,
  type ReadingLocation,
  type StoredMetric,
} from '../../domain/drying/metrics';

type Body = BodyOf<'add_drying_readings'>;
type ReadingInput = components['schemas']['ReadingInput'];
type SourceOfValues = components['schemas']['SourceOfValues'];

/** At most this many readings in one request. */
const MAX_READINGS = 2000;
/** Air read outside or in an unaffected place may belong to the building rather than an area. */
const BUILDING_LOCATIONS: ReadingLocation[] = ['outside', 'unaffected'];
/** Where a reading may name its dehumidifier. */
const UNIT_LOCATIONS: ReadingLocation[] = ['dehumidifier_inlet', 'dehumidifier_exhaust'];

/** One reading as checked: where it goes and what is stored. */
interface Checked {
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
  at: string;
  source: SourceOfValues;
}

interface Row {
  path: string;
  day?: number;
  date?: string;
  area?: string;
  location?: ReadingLocation;
  source?: SourceOfValues;
  readings: ReadingInput[];
}

/** The body's own row (readings in the body) and its `rows`, each with its path and the body's defaults. */
function rowsOf(body: Body): Row[] {
  const defaults = {
    day: body.day,
    date: body.date,
    area: body.area,
    location: body.location,
    source: body.source_of_values,
  };
  const rows: Row[] = [];
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

/** The materials the request reads (as stored), whose dry goals its answer gives. */
function materialsOf(body: Body): string[] {
  return [
    ...new Set(
      rowsOf(body)
        .flatMap((row) => row.readings.map((r) => stored(r.metric, r.value).metric))
        .filter(isMaterial),
    ),
  ];
}

/** Checks the whole request before anything is saved; every bad row is named. */
function check(rows: Row[], startDate: string): Checked[] {
  const errors: FieldError[] = [];
  const checked: Checked[] = [];
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
      const range = rangeOf(reading.metric);
      if (reading.value < range.min || reading.value > range.max) {
        errors.push({
          path: `${at}/value`,
          message: `${reading.metric} must be between ${range.min} and ${range.max}${range.unit}`,
        });
      }
      if (!row.area && !BUILDING_LOCATIONS.includes(location)) {
        errors.push({
          path: `${row.path}/area`,
          message: `is required for ${location} readings (only outside and unaffected readings may have no area)`,
        });
      }
      const value = stored(reading.metric, reading.value);
      if (reading.reference && (value.metric === 'temp_f' || value.metric === 'rh_pct')) {
        errors.push({
          path: `${at}/reference`,
          message: 'marks a material reading as the dry goal; air readings cannot be references',
        });
      }
      if (reading.unit !== undefined && !UNIT_LOCATIONS.includes(location)) {
        errors.push({
          path: `${at}/unit`,
          message: `names a dehumidifier; give it with location ${UNIT_LOCATIONS.join(' or ')}`,
        });
      }
      if (day === null) continue;
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
  if (errors.length)
    throw invalidRequest(
      errors.filter((e, i) => errors.findIndex((o) => o.path === e.path && o.message === e.message) === i),
    );
  return checked;
}

/** 422 naming each row whose day is after today: readings record what was read on site. */
function refuseFutureRows(rows: Row[], startDate: string, today: string): void {
  const errors = rows.flatMap((row) => {
    const { day } = resolveDay(row, startDate, row.path);
    const error =
      day === null
        ? null
        : futureDayError(day, startDate, today, `${row.path}/${row.date !== undefined ? 'date' : 'day'}`);
    return error ? [error] : [];
  });
  if (errors.length) throw dateInFuture(errors, today);
}

function dayOfRow(row: Row, startDate: string, errors: FieldError[]): number | null {
  const { day, error } = resolveDay(row, startDate, row.path);
  if (error) errors.push(error);
  else if (day === null) errors.push({ path: `${row.path}/day`, message: 'give the day number or the date' });
  return day;
}

/** A new log's start: the earliest date the rows name, if before today (a date is `YYYY-MM-DD`, so text orders it). */
function earliestDate(rows: Row[], today: string): string {
  return rows.reduce(
    (earliest, row) => (row.date !== undefined && row.date < earliest ? row.date : earliest),
    today,
  );
}

/** The log, started if the job has none: on its start date, planned for 3 days or up to the latest day read. */
async function logFor(
  ctx: WriteContext,
  job: Awaited<ReturnType<typeof resolveJob>>,
  existing: LogRow | null,
  startDate: string,
  readings: Checked[],
) {
  if (existing) return { log: existing, started: null };
  const lastDay = Math.max(0, ...readings.map((r) => r.day));
  const areaNames = [
    ...new Set(readings.map((r) => r.areaName).filter((name): name is string => name !== null)),
  ];
  const started = await startLog(ctx, job, {
    startDate,
    plannedDays: Math.max(DEFAULT_PLANNED_DAYS, lastDay),
    areaNames,
    startedBy: 'add_drying_readings',
  });
  return { log: started.log, started };
}

/** Longer plans for days read past them: the job's, and an area's own. */
async function extendPlans(
  ctx: WriteContext,
  log: LogRow,
  areas: AreaRow[],
  readings: Checked[],
): Promise<void> {
  const lastDay = Math.max(...readings.map((r) => r.day));
  if (lastDay > log.planned_days)
    Object.assign(log, await ctx.rows.update('drying_logs', log.id, { planned_days: lastDay }));
  for (const area of areas) {
    const last = Math.max(
      0,
      ...readings.filter((r) => r.areaName?.toLowerCase() === area.name.toLowerCase()).map((r) => r.day),
    );
    if (area.planned_days !== null && last > area.planned_days)
      Object.assign(area, await ctx.rows.update('drying_areas', area.id, { planned_days: last }));
  }
}

/**
 * The unit each reading names, by id or asset tag: a dehumidifier of the reading's area on site
 * that day (the day it was removed included); every reading that names another is a 400.
 */
async function unitsOf(db: WriteContext['db'], log: LogRow, readings: Checked[]): Promise<(string | null)[]> {
  if (readings.every((r) => r.unit === null)) return readings.map(() => null);
  const units = await loadEquipment(db, log.id);
  const errors: FieldError[] = [];
  const ids = readings.map((r) => {
    if (r.unit === null) return null;
    const wanted = r.unit.toLowerCase();
    const unit = units.find((u) => u.id === r.unit || u.asset_tag?.toLowerCase() === wanted);
    const date = dateOfDay(log.start_date, r.day);
    const problem = !unit
      ? `is no unit of this log (a dehumidifier's id or asset tag, from get_drying_log)`
      : unit.kind !== 'dehumidifier'
        ? `is not a dehumidifier (${unit.kind})`
        : r.areaName === null || unit.area.toLowerCase() !== r.areaName.toLowerCase()
          ? `is in ${unit.area}, not in ${r.areaName ?? 'no area'}`
          : unit.placed_on > date || (unit.removed_on !== null && unit.removed_on < date)
            ? `was not on site on ${date} (placed ${unit.placed_on}${unit.removed_on ? `, removed ${unit.removed_on}` : ''})`
            : null;
    if (problem) errors.push({ path: `${r.at}/unit`, message: problem });
    return unit?.id ?? null;
  });
  if (errors.length) throw invalidRequest(errors);
  return ids;
}

export const add_drying_readings: WriteHandler<'add_drying_readings'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const existing = await findLogWithGoals(db, caller, job.id, materialsOf(body));
  // Checked once, against the log's start date or, for a log this call starts, today.
  const today = existing?.today ?? (await todayOf(db, caller));
  const rows = rowsOf(body);
  const startDate = existing?.start_date ?? earliestDate(rows, today);
  const readings = check(rows, startDate);
  refuseFutureRows(rows, startDate, today);
  const onSite = await onSiteTeammate(db, caller, body.by);
  const { log, started } = await logFor(ctx, job, existing, startDate, readings);
  const plannedBefore = started ? null : log.planned_days;
  const areas = [...log.areas];
  const areasAdded = await addMissingAreas(
    ctx,
    log,
    areas,
    readings.map((r) => r.areaName).filter((name): name is string => name !== null),
  );
  const areaDaysBefore = areas.map((a) => plannedDaysOf(a, log)).join();
  await extendPlans(ctx, log, areas, readings);
  const unitIds = await unitsOf(db, log, readings);

  const saved = readings.map((r, position) => ({
    id: newId('rdg'),
    position,
    log_id: log.id,
    area_id: r.areaName ? findArea(areas, r.areaName)!.id : null,
    day: r.day,
    location: r.location,
    metric: r.metric,
    value_x100: r.valueX100,
    point: r.point,
    reference: r.reference,
    equipment_id: unitIds[position],
    meter: r.meter,
    source_of_values: r.source,
    recorded_by: caller.personId,
    on_site_by: onSite?.id ?? null,
  }));
  // Nothing below reads the readings back: they are written with the write's last statement.
  ctx.rows.insertAtCommit('drying_readings', saved);

  const planChanged =
    started !== null ||
    areasAdded.length > 0 ||
    areaDaysBefore !== areas.map((a) => plannedDaysOf(a, log)).join();
  const estimate = planChanged ? await followPlan(ctx, log, areas, started?.estimateCreated ?? false) : null;
  const areaName = (id: string | null) => areas.find((a) => a.id === id)?.name ?? null;
  // Goals only for the materials read now: the log's references, then this request's, by day
  // (a stable sort keeps each day's in the order they were recorded).
  const goalReadings = [...(existing?.goalReadings ?? []), ...saved].sort((a, b) => a.day - b.day);
  const days = [...new Set(readings.map((r) => r.day))].sort((a, b) => a - b);
  const readAreas = [
    ...new Set(saved.map((r) => areaName(r.area_id)).filter((name): name is string => name !== null)),
  ];

  // A log this call started is what undo names: undo takes the log back, and this with it.
  ctx.changes.add(
    {
      kind: 'visits',
      data: {
        action: 'drying.readings_added',
        log_id: log.id,
        count: saved.length,
        days,
        areas: readAreas,
        areas_added: areasAdded.map((a) => a.name),
        planned_days:
          plannedBefore !== null && plannedBefore !== log.planned_days
            ? { before: plannedBefore, after: log.planned_days }
            : null,
        on_site_by: onSite,
      },
      summary: `${saved.length} drying reading${saved.length === 1 ? '' : 's'} on #${job.job_number} (day ${days.join(', ')}${readAreas.length ? `; ${readAreas.join(', ')}` : ''}) ${doneBy(caller, onSite)}`,
      job: jobRefOf(job),
      recordId: log.id,
    },
    { undo: !started },
  );
  return {
    log_id: log.id,
    log_started: started !== null,
    added: saved.length,
    days,
    areas_added: areasAdded.map((a) => a.name),
    planned_days: { before: plannedBefore, after: log.planned_days },
    conditions: airConditions(saved, areaName, elevationOf({ log }).pressureKpa),
    materials: materialStatuses(saved, new DryGoals(goalReadings), areaName),
    estimate,
    credits: started?.credits ?? { used: 0, remaining: log.credits },
  };
};
