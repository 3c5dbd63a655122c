/**
 * Reading a drying log: its rows, days and dates, and its areas by name. Day 1 is the start date;
 * dates are calendar dates of the company's timezone, held as `YYYY-MM-DD` text.
 */
import type { Knex } from 'knex';
import { prepared } from '../../infrastructure/db/prepared';
import { runTogether } from '../../infrastructure/db/together';
import { ApiError, unknownName } from '../../platform/errors';
import { jobNumberOf } from '../../platform/job-ref';
import type { ReadingLocation, StoredMetric } from './metrics';
import type { Caller } from '../../platform/caller';

export interface LogRow {
  id: string;
  job_id: string;
  start_date: string;
  planned_days: number;
  estimate_id: string | null;
  elevation_ft: number | null;
  company_elevation_ft: number;
  today: string;
  version: number;
  /** Changes with every change to the log or its rows (see migration 008). */
  revision: string;
  /** The log's areas in their order, and the company's credits, read with the log. */
  areas: AreaRow[];
  credits: number;
}

export interface AreaRow {
  id: string;
  name: string;
  planned_days: number | null;
  position: number;
}

export interface ReadingRow {
  id: string;
  area_id: string | null;
  day: number;
  location: ReadingLocation;
  metric: StoredMetric;
  value_x100: number;
  point: string | null;
  reference: boolean;
  /** The dehumidifier whose inlet or exhaust air it is. */
  equipment_id: string | null;
  /** The meter and scale a material was read with. */
  meter: string | null;
  source_of_values: 'dictated_by_user' | 'read_from_log';
  recorded_by: string;
  recorded_by_name: string;
  on_site_by: string | null;
  on_site_by_name: string | null;
  recorded_at: Date;
}

export interface NoteRow {
  id: string;
  area_id: string | null;
  day: number | null;
  text: string;
  author_id: string;
  author_name: string;
  on_site_by: string | null;
  on_site_by_name: string | null;
  created_at: Date;
}

export interface SkipRow {
  id: string;
  area_id: string | null;
  day: number;
  reason: string | null;
}

export interface JobRef {
  id: string;
  job_number: number;
}

export interface DryingRecord {
  job: JobRef;
  log: LogRow;
  areas: AreaRow[];
  readings: ReadingRow[];
  notes: NoteRow[];
  skips: SkipRow[];
}

const DAY_MS = 86_400_000;

export function dateOfDay(startDate: string, day: number): string {
  return new Date(Date.parse(`${startDate}T00:00:00Z`) + (day - 1) * DAY_MS).toISOString().slice(0, 10);
}

/** The day number of a date (1 for the start date; 0 or less before it). */
export function dayOfDate(startDate: string, date: string): number {
  return Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${startDate}T00:00:00Z`)) / DAY_MS) + 1;
}

/** Today in the company's timezone, as PostgreSQL knows it (the timezone was checked against it). */
export async function todayOf(db: Knex, caller: Caller): Promise<string> {
  const row = await db.first(
    db.raw("to_char((now() at time zone ?)::date, 'YYYY-MM-DD') as today", [caller.timezone]),
  );
  return row.today;
}

/** The columns of a log row (`d`), with its company's (`c`) and its areas. */
const LOG_COLUMNS = `d.id, d.job_id, to_char(d.start_date, 'YYYY-MM-DD') as start_date, d.planned_days, d.estimate_id, d.elevation_ft, d.version,
  d.revision::text as revision, c.elevation_ft as company_elevation_ft, to_char((now() at time zone c.timezone)::date, 'YYYY-MM-DD') as today, c.credits,
  (select coalesce(json_agg(json_build_object('id', a.id, 'name', a.name, 'planned_days', a.planned_days, 'position', a.position) order by a.position), '[]')
    from drying_areas a where a.log_id = d.id) as areas`;

const logColumns = (db: Knex) => db.raw(LOG_COLUMNS);

/**
 * The job's log (`d`) joined to its company (`c`), within the caller's company; its parameters
 * are the job's id and the company's. Written as text, not built with knex: the writes on a log
 * send it every time, and compiling it cost more than the driver's whole share of the statement.
 */
const LOG_OF_JOB =
  'from drying_logs d join companies c on c.id = d.company_id where d.job_id = ? and d.company_id = ? limit 1';

/** Drivers hand json back parsed or as text. */
export const parsedJson = <T>(value: unknown): T =>
  (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** The job's log row with its areas and the company's credits, or null. */
export async function findLog(db: Knex.Transaction, caller: Caller, jobId: string): Promise<LogRow | null> {
  const [row] = await runTogether<LogRow>(db, [
    { sql: `select ${LOG_COLUMNS} ${LOG_OF_JOB}`, bindings: [jobId, caller.companyId] },
  ]);
  return row ? { ...row, areas: parsedJson(row.areas) } : null;
}

/** A reading that may set a dry goal: a reference, or one read in an unaffected place. */
export type GoalReading = Pick<
  ReadingRow,
  'area_id' | 'day' | 'location' | 'metric' | 'value_x100' | 'point' | 'reference' | 'meter'
>;

/**
 * As findLog, with the log's readings of these materials that may set a dry goal, oldest first
 * (by day, then as recorded): one round trip where a reading needs both.
 */
export async function findLogWithGoals(
  db: Knex.Transaction,
  caller: Caller,
  jobId: string,
  materials: string[],
): Promise<(LogRow & { goalReadings: GoalReading[] }) | null> {
  const [row] = await runTogether<LogRow & { goal_readings: unknown }>(db, [
    { sql: LOG_WITH_GOALS, bindings: [materials, jobId, caller.companyId] },
  ]);
  if (!row) return null;
  const { goal_readings: goalReadings, ...log } = row;
  return { ...log, areas: parsedJson(log.areas), goalReadings: parsedJson(goalReadings) };
}

/**
 * Sent by every reading, as a prepared statement: planned once per connection. (Its tables are
 * analysed as they grow, which makes a new plan: one made while drying_readings was nearly empty
 * does not stay.) The goals' condition is the index drying_readings_goals's, in literals, so that
 * the planner can use it. Parameters: the materials, then LOG_OF_JOB's.
 */
const LOG_WITH_GOALS = `select ${LOG_COLUMNS},
  (select coalesce(json_agg(json_build_object('area_id', r.area_id, 'day', r.day, 'location', r.location, 'metric', r.metric, 'value_x100', r.value_x100, 'point', r.point, 'reference', r.reference, 'meter', r.meter)
     order by r.day, r.recorded_at, r.position), '[]')
    from drying_readings r where r.log_id = d.id and r.metric = any(?::text[]) and (r.reference or r.location = 'unaffected')) as goal_readings
  ${LOG_OF_JOB}`;

export interface JobLog {
  job: JobRef;
  /** Null when the job has no log. */
  log: LogRow | null;
  billed: BilledLine[];
}

/**
 * The job named by `{job_id}` (`j`), its log (`d`, null columns when it has none) and its
 * day-billed lines: one row, which a reader may add the log's other parts to, as sub-selects of
 * `d`. Planning the sub-selects costs more than running them (0.7 ms against 0.6): each caller runs
 * it as a prepared statement with a name of its own (one name a query text), by id or by number.
 */
export function jobLogQuery(
  db: Knex,
  caller: Caller,
  ref: string,
): { query: Knex.QueryBuilder; byNumber: boolean } {
  const jobNumber = jobNumberOf(ref);
  const query = db('jobs as j')
    .join('companies as c', 'c.id', 'j.company_id')
    .leftJoin('drying_logs as d', 'd.job_id', 'j.id')
    .where('j.company_id', caller.companyId)
    .where(jobNumber === null ? { 'j.id': ref } : { 'j.job_number': jobNumber })
    .first('j.id as job_ref', 'j.job_number', logColumns(db), db.raw(`${billedLinesJson('j.id')} as billed`));
  return { query, byNumber: jobNumber !== null };
}

/** A row of jobLogQuery as the driver hands it (its JSON parts may be text); the log's columns are null without a log. */
export type JobLogRow = { job_ref: string; job_number: number; billed: unknown } & LogRow;

/** The row of jobLogQuery, without the parts a reader added. */
export function jobLogOf(row: JobLogRow): JobLog {
  const { job_ref: jobId, job_number: jobNumber, billed, ...log } = row;
  return {
    job: { id: jobId, job_number: jobNumber },
    log: log.id ? { ...log, areas: parsedJson(log.areas) } : null,
    billed: parsedJson(billed),
  };
}

/** The job named by `{job_id}`, its log (null when it has none) and its day-billed lines, in one query. */
export async function findJobLog(db: Knex, caller: Caller, ref: string): Promise<JobLog | null> {
  const { query, byNumber } = jobLogQuery(db, caller, ref);
  const row = await prepared(query, byNumber ? 'drying_job_log_by_number' : 'drying_job_log_by_id');
  return row ? jobLogOf(row) : null;
}

export interface BilledLine {
  estimate_id: string;
  line_id: string;
  room: string;
  /** The room's drying days, which a line billing units a day bills; null for a line billing its own quantity (its days are not stated). */
  drying_days: number | null;
  code: string | null;
  /** What the line bills, in unit-days × 100: units a day × the room's days, or its own quantity. */
  unit_days_x100: number;
}

/** Day-billed lines of the job's estimates that sit in a room, with the room's drying days, as JSON. */
function billedLinesJson(jobIdSql: string): string {
  return `(select coalesce(json_agg(json_build_object('estimate_id', l.estimate_id, 'line_id', l.id, 'room', r.name,
      'drying_days', case when l.units_per_day_x100 is not null then r.drying_days end, 'code', l.code,
      'unit_days_x100', coalesce(l.units_per_day_x100 * r.drying_days, l.quantity_x100, 0)) order by e.created_at, l.position), '[]')
    from estimate_lines l join estimates e on e.id = l.estimate_id join estimate_rooms r on r.id = l.room_id
    where e.job_id = ${jobIdSql} and l.per_day)`;
}

export async function billedLines(db: Knex, jobId: string): Promise<BilledLine[]> {
  const row = await db.first(db.raw(`${billedLinesJson('?')} as billed`, [jobId]));
  return parsedJson(row.billed);
}

export async function loadAreas(db: Knex, logId: string): Promise<AreaRow[]> {
  return db('drying_areas')
    .where({ log_id: logId })
    .orderBy('position')
    .select('id', 'name', 'planned_days', 'position');
}

const MEASURED = [
  'r.area_id',
  'r.day',
  'r.location',
  'r.metric',
  'r.value_x100',
  'r.point',
  'r.reference',
  'r.equipment_id',
  'r.meter',
];
const RECORDED = [
  'r.id',
  'r.source_of_values',
  'r.recorded_by',
  'p.name as recorded_by_name',
  'r.on_site_by',
  'o.name as on_site_by_name',
  'r.recorded_at',
];

/**
 * Everything of a log, read in one go. Who recorded each reading, and when, is read only when the
 * readings themselves are answered (`withRecorded`): a month of a whole job is 1,200 of them.
 */
export async function loadRecord(
  db: Knex,
  job: JobRef,
  log: LogRow,
  withRecorded = true,
): Promise<DryingRecord> {
  const readings = db('drying_readings as r')
    .where('r.log_id', log.id)
    .orderBy([{ column: 'r.day' }, { column: 'r.recorded_at' }, { column: 'r.position' }])
    .select(withRecorded ? [...MEASURED, ...RECORDED] : MEASURED);
  if (withRecorded)
    readings.join('people as p', 'p.id', 'r.recorded_by').leftJoin('people as o', 'o.id', 'r.on_site_by');
  const [areas, readingRows, notes, skips] = await Promise.all([
    loadAreas(db, log.id),
    readings,
    db('drying_notes as n')
      .join('people as p', 'p.id', 'n.author_id')
      .leftJoin('people as o', 'o.id', 'n.on_site_by')
      .where('n.log_id', log.id)
      .orderBy([{ column: 'n.created_at' }, { column: 'n.id' }])
      .select(
        'n.id',
        'n.area_id',
        'n.day',
        'n.text',
        'n.author_id',
        'p.name as author_name',
        'n.on_site_by',
        'o.name as on_site_by_name',
        'n.created_at',
      ),
    db('drying_skips').where({ log_id: log.id }).orderBy('day').select('id', 'area_id', 'day', 'reason'),
  ]);
  return { job, log, areas, readings: readingRows, notes, skips };
}

export function findArea(areas: AreaRow[], name: string): AreaRow | undefined {
  const wanted = name.trim().toLowerCase();
  return areas.find((area) => area.name.toLowerCase() === wanted);
}

/** The area of that name, else 422 naming the log's areas. */
export function requireArea(areas: AreaRow[], name: string): AreaRow {
  const area = findArea(areas, name);
  if (!area)
    throw unknownName(
      'unknown_area',
      'area on this drying log',
      name.trim(),
      areas.map((a) => a.name),
    );
  return area;
}

export function noLog(job: JobRef): ApiError {
  return new ApiError(
    404,
    'not_found',
    `Job #${job.job_number} has no drying log yet; create_drying_log, add_drying_readings or add_drying_note starts one.`,
  );
}

/** The plan of an area: its own days, else the job's. */
export function plannedDaysOf(area: AreaRow, log: Pick<LogRow, 'planned_days'>): number {
  return area.planned_days ?? log.planned_days;
}
