/**
 * The steps of add_drying_readings that read or write the log: the log (started when the job has
 * none), plans lengthened for days read past them, the dehumidifiers readings name, and the rows
 * saved. The rules they apply are in reading-rows.ts.
 */
import { invalidRequest, type FieldError } from '../../platform/errors';
import type { WriteCallContext } from '../../platform/handler';
import { newId } from '../../platform/ids';
import type { JobRow } from '../jobs/job-records';
import { findArea, type AreaRow, type LogRow } from './drying-records';
import { loadEquipment } from './equipment';
import { DEFAULT_PLANNED_DAYS, startLog, type StartedLog } from './log-start';
import { areaNamesOf, findUnit, lastDayIn, unitProblem, type CheckedReading } from './reading-rows';

/** The log, started if the job has none: on its start date, planned for 3 days or up to the latest day read. */
export async function logForReadings(
  ctx: WriteCallContext,
  job: JobRow,
  existing: LogRow | null,
  startDate: string,
  readings: CheckedReading[],
): Promise<{ log: LogRow; started: StartedLog | null }> {
  if (existing) return { log: existing, started: null };
  const lastDay = Math.max(0, ...readings.map((r) => r.day));
  const started = await startLog(ctx, job, {
    startDate,
    plannedDays: Math.max(DEFAULT_PLANNED_DAYS, lastDay),
    areaNames: areaNamesOf(readings),
    startedBy: 'add_drying_readings',
  });
  return { log: started.log, started };
}

/** Longer plans for days read past them: the job's, and an area's own (the rows given are updated). */
export async function extendPlans(
  ctx: WriteCallContext,
  log: LogRow,
  areas: AreaRow[],
  readings: CheckedReading[],
): Promise<void> {
  const lastDay = Math.max(...readings.map((r) => r.day));
  if (lastDay > log.planned_days)
    Object.assign(log, await ctx.rows.update('drying_logs', log.id, { planned_days: lastDay }));
  for (const area of areas) {
    const last = lastDayIn(readings, area.name);
    if (area.planned_days !== null && last > area.planned_days)
      Object.assign(area, await ctx.rows.update('drying_areas', area.id, { planned_days: last }));
  }
}

/** The unit each reading names (its id), by id or asset tag; every reading that names a wrong one is a 400. */
export async function unitsOf(
  db: WriteCallContext['db'],
  log: LogRow,
  readings: CheckedReading[],
): Promise<(string | null)[]> {
  if (readings.every((r) => r.unit === null)) return readings.map(() => null);
  const units = await loadEquipment(db, log.id);
  const errors: FieldError[] = [];
  const ids = readings.map((r) => {
    if (r.unit === null) return null;
    const unit = findUnit(units, r.unit);
    const problem = unitProblem(unit, r, log.start_date);
    if (problem) errors.push({ path: `${r.at}/unit`, message: problem });
    return unit?.id ?? null;
  });
  if (errors.length) throw invalidRequest(errors);
  return ids;
}

/** The drying_readings rows of the checked readings, in the order sent. */
export function readingRowsOf(
  readings: CheckedReading[],
  place: { log: LogRow; areas: AreaRow[]; unitIds: (string | null)[] },
  people: { recordedBy: string; onSiteBy: string | null },
) {
  return readings.map((r, position) => ({
    id: newId('rdg'),
    position,
    log_id: place.log.id,
    area_id: r.areaName ? findArea(place.areas, r.areaName)!.id : null,
    day: r.day,
    location: r.location,
    metric: r.metric,
    value_x100: r.valueX100,
    point: r.point,
    reference: r.reference,
    equipment_id: place.unitIds[position],
    meter: r.meter,
    source_of_values: r.source,
    recorded_by: people.recordedBy,
    on_site_by: people.onSiteBy,
  }));
}
