/**
 * What the readiness check reads of a log's readings besides its summary: each material point's
 * readings in the order they count, and which air (temperature or RH) was read where on which day.
 * Kept per log for its revision, which every change of its readings moves, as the log's summary is
 * (read-log.ts): grouping a 30-day, 8-area log's readings took about 8 ms of the database a check.
 * The desk review and the program rules share one read; the least recently used logs go first.
 */
import type { Knex } from 'knex';
import { prepared } from '../../infrastructure/db/prepared';
import { parsedJson, type LogRow } from './drying-records';

export interface PointRow {
  area_id: string;
  metric: string;
  point: string | null;
  days: number[];
  values: number[];
}
export interface AirRow {
  day: number;
  location: string;
  area_id: string | null;
}
export interface ReadingFacts {
  points: PointRow[];
  air: AirRow[];
}

const READING_FACTS = `select
  (select coalesce(json_agg(json_build_object('area_id', p.area_id, 'metric', p.metric, 'point', p.point, 'days', p.days, 'values', p.vals)), '[]')
    from (select r.area_id, r.metric, r.point, array_agg(r.day order by r.day, r.recorded_at, r.position) as days,
            array_agg(r.value_x100 order by r.day, r.recorded_at, r.position) as vals
          from drying_readings r
          where r.log_id = ? and r.area_id is not null and not r.reference and r.location <> 'unaffected' and r.metric not in ('temp_f', 'rh_pct')
          group by r.area_id, r.metric, r.point) p) as points,
  (select coalesce(json_agg(json_build_object('day', a.day, 'location', a.location, 'area_id', a.area_id)), '[]')
    from (select distinct r.day, r.location, r.area_id from drying_readings r
          where r.log_id = ? and r.metric in ('temp_f', 'rh_pct')) a) as air`;

const KEPT_LOGS = 500;
/** The read itself is kept, so that two checks of one log at once read it once. */
const kept = new Map<string, { revision: string; facts: Promise<ReadingFacts> }>();

async function read(db: Knex, logId: string): Promise<ReadingFacts> {
  const { rows } = (await prepared(db.raw(READING_FACTS, [logId, logId]), 'readiness_reading_facts')) as {
    rows: Record<'points' | 'air', unknown>[];
  };
  return { points: parsedJson(rows[0].points), air: parsedJson(rows[0].air) };
}

export function readingFactsOf(db: Knex, log: Pick<LogRow, 'id' | 'revision'>): Promise<ReadingFacts> {
  const found = kept.get(log.id);
  kept.delete(log.id);
  if (found && found.revision === log.revision) {
    kept.set(log.id, found);
    return found.facts;
  }
  const facts = read(db, log.id);
  kept.set(log.id, { revision: log.revision, facts });
  if (kept.size > KEPT_LOGS) kept.delete(kept.keys().next().value!);
  facts.catch(() => {
    if (kept.get(log.id)?.facts === facts) kept.delete(log.id);
  });
  return facts;
}
