/**
 * Reading a log as get_drying_log answers it. A month of a whole job is 1,200 readings to read
 * and compute from, so a node keeps the summary it computed for each log (the default view, the
 * one assistants ask for) under the log's revision, which every change replaces (migration 008).
 * Only reads outside a write fill it: inside one, the rows may never be committed.
 */
import type { Knex } from 'knex';
import { prepared } from '../../infrastructure/db/prepared';
import type { Caller } from '../../platform/caller';
import { notFound } from '../../platform/errors';
import {
  billedLines,
  dayOfDate,
  jobLogOf,
  jobLogQuery,
  loadRecord,
  noLog,
  parsedJson,
  requireArea,
  type JobLog,
  type JobLogRow,
  type JobRef,
  type LogRow,
} from './drying-records';
import {
  toDryingLog,
  withBilledWarnings,
  type DryingLog,
  type DryingLogWithoutEquipment,
  type LogView,
} from './drying-status';
import { equipmentJson, equipmentOnSite, loadEquipment, type EquipmentRow } from './equipment';
import { chamberAreasJson, chamberViews, chambersJson, loadChambers, type ChamberRows } from './chambers';
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

async function partsOf(
  db: Knex,
  job: JobRef,
  log: LogRow,
): Promise<Pick<LogToRead, 'billed' | 'units' | 'rooms'>> {
  const [billed, units, rooms] = await Promise.all([
    billedLines(db, job.id),
    loadEquipment(db, log.id),
    loadChambers(db, log),
  ]);
  return { billed, units, rooms };
}

const isSummary = (view: LogView) =>
  view.detail === 'summary' &&
  view.area === undefined &&
  view.fromDay === undefined &&
  view.toDay === undefined;

/** What a reader of the log needs besides its readings: its job, its day-billed lines, its equipment and its chambers. */
export interface LogToRead extends JobLog {
  units: EquipmentRow[];
  rooms: ChamberRows;
}

/**
 * The job named by `{job_id}` with its log and everything readLog needs but the readings, in one
 * prepared statement: get_drying_log and check_claim_readiness make one round trip, on one
 * connection, before the (kept) summary.
 */
export async function findLogToRead(db: Knex, caller: Caller, ref: string): Promise<LogToRead | null> {
  const { query, byNumber } = jobLogQuery(db, caller, ref);
  query.select(
    db.raw(`${equipmentJson('d.id')} as units`),
    db.raw(`${chambersJson('d.id')} as chambers`),
    db.raw(`${chamberAreasJson('d.id', 'd.estimate_id')} as chamber_areas`),
  );
  const row = await prepared(query, byNumber ? 'drying_log_to_read_by_number' : 'drying_log_to_read_by_id');
  if (!row) return null;
  const {
    units,
    chambers,
    chamber_areas: areas,
    ...rest
  } = row as JobLogRow & { units: unknown; chambers: unknown; chamber_areas: unknown };
  return {
    ...jobLogOf(rest),
    units: parsedJson(units),
    rooms: { chambers: parsedJson(chambers), areas: parsedJson(areas) },
  };
}

/**
 * The log, read afresh; `fromCache` (reads outside a write) may answer a summary kept for its
 * revision. `parts` are its billed lines, equipment and chambers when the caller has read them.
 */
/**
 * The drying log of the caller's job (by id or number) in `view`, as get_drying_log answers it:
 * another company's job, or none, is a 404; a job without a log, or an area it does not have, is
 * refused by noLog and requireArea.
 */
export async function readLogOfJob(
  db: Knex,
  caller: Caller,
  jobRef: string,
  view: LogView,
): Promise<DryingLog> {
  const found = await findLogToRead(db, caller, jobRef);
  if (!found) throw notFound('job');
  const { job, log } = found;
  if (!log) throw noLog(job);
  if (view.area) requireArea(log.areas, view.area);
  return readLog(db, job, log, view, { parts: found, fromCache: true });
}

export async function readLog(
  db: Knex,
  job: JobRef,
  log: LogRow,
  view: LogView = SUMMARY,
  options: { parts?: Pick<LogToRead, 'billed' | 'units' | 'rooms'>; fromCache?: boolean } = {},
): Promise<DryingLog> {
  const { billed, units, rooms } = options.parts ?? (await partsOf(db, job, log));
  const cacheable = options.fromCache === true && isSummary(view);
  let answer = cacheable ? keptSummary(log) : null;
  if (!answer) {
    answer = toDryingLog(await loadRecord(db, job, log, view.detail === 'readings'), view);
    if (cacheable) keep(log, answer);
  }
  // Today and the estimate (its lines, its rooms' sizes) are not part of the log's revision;
  // equipment-days count today, and billing compares them with the estimate.
  const equipment = equipmentOnSite(
    units,
    log.areas.map((area) => area.name),
    log.today,
  );
  const chambers = chamberViews(rooms.chambers, rooms.areas, units);
  const chamberAir = chambers.map((chamber) => ({
    chamber: chamber.name,
    areas: answer.areas
      .filter((area) => area.air !== null && chamber.areas.some((a) => a.name === area.name))
      .map((area) => area.air!),
    unaffected: answer.building.unaffected,
    outside: answer.building.outside,
  }));
  const billing = billingOf(log, log.areas, units, billed);
  const withBilled = withBilledWarnings(
    {
      ...answer,
      today_day: dayOfDate(log.start_date, log.today),
      equipment,
      chambers,
      chamber_air: chamberAir,
      billing,
    },
    billed,
  );
  return { ...withBilled, warnings: [...withBilled.warnings, ...billingWarnings(billing)] };
}
