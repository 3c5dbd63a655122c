/**
 * Reading a log as get_drying_log answers it. A month of a whole job is 1,200 readings to read
 * and compute from, so a node keeps the summary it computed for each log (the default view, the
 * one assistants ask for) under the log's revision, which every change replaces (migration 008).
 * Only reads outside a write fill it: inside one, the rows may never be committed.
 */
import type { Knex } from 'knex';
import { billedLines, dayOfDate, loadRecord, type BilledLine, type JobRef, type LogRow } from './drying-records';
import { toDryingLog, withBilledWarnings, type DryingLog, type DryingLogWithoutEquipment, type LogView } from './drying-status';
import { equipmentOnSite, loadEquipment } from './equipment';
import { chamberViews, loadChambers } from './chambers';
import { billingOf, billingWarnings } from './billing';

const SUMMARY: LogView = { detail: 'summary' };
/** Summaries kept per node, the least recently used dropped first (a summary is a few KB). */
const KEPT = 500;
const summaries = new Map<string, { revision: string; elevation: number; log: DryingLogWithoutEquipment }>();

function keptSummary(log: LogRow): DryingLogWithoutEquipment | null {
  const kept = summaries.get(log.id);
  if (!kept || kept.revision !== log.revision || kept.elevation !== log.company_elevation_ft) return null;
  summaries.delete(log.id);
  summaries.set(log.id, kept);
  return kept.log;
}

function keep(log: LogRow, summary: DryingLogWithoutEquipment): void {
  summaries.delete(log.id);
  summaries.set(log.id, { revision: log.revision, elevation: log.company_elevation_ft, log: summary });
  if (summaries.size > KEPT) summaries.delete(summaries.keys().next().value!);
}

const isSummary = (view: LogView) => view.detail === 'summary' && view.area === undefined && view.fromDay === undefined && view.toDay === undefined;

/** The log, read afresh; `fromCache` (reads outside a write) may answer a summary kept for its revision. */
export async function readLog(db: Knex, job: JobRef, log: LogRow, view: LogView = SUMMARY, options: { billed?: BilledLine[]; fromCache?: boolean } = {}): Promise<DryingLog> {
  const [billed, units, rooms] = await Promise.all([options.billed ?? billedLines(db, job.id), loadEquipment(db, log.id), loadChambers(db, log)]);
  const cacheable = options.fromCache === true && isSummary(view);
  let answer = cacheable ? keptSummary(log) : null;
  if (!answer) {
    answer = toDryingLog(await loadRecord(db, job, log, view.detail === 'readings'), view);
    if (cacheable) keep(log, answer);
  }
  // Today and the estimate (its lines, its rooms' sizes) are not part of the log's revision;
  // equipment-days count today, and billing compares them with the estimate.
  const equipment = equipmentOnSite(units, log.areas.map((area) => area.name), log.today);
  const chambers = chamberViews(rooms.chambers, rooms.areas, units);
  const chamberAir = chambers.map((chamber) => ({
    chamber: chamber.name,
    areas: answer.areas.filter((area) => area.air !== null && chamber.areas.some((a) => a.name === area.name)).map((area) => area.air!),
    unaffected: answer.building.unaffected,
    outside: answer.building.outside,
  }));
  const billing = billingOf(log, log.areas, units, billed);
  const withBilled = withBilledWarnings({ ...answer, today_day: dayOfDate(log.start_date, log.today), equipment, chambers, chamber_air: chamberAir, billing }, billed);
  return { ...withBilled, warnings: [...withBilled.warnings, ...billingWarnings(billing)] };
}
