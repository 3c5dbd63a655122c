/**
 * The desk review's checks of the log against itself and the estimate: an area still wet on its
 * last day, equipment pulled while it was wet, removals billed against points read in place (and
 * points no longer read with no removal billed), category work on a clean-water loss without a
 * note, days without outside or unaffected air, and dehumidifiers without an exhaust reading. The
 * log's summary has each point's latest reading only; what these need besides (each point's
 * readings by day, which air was read where, the lines, the category and the notes) is one query.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { prepared } from '../../infrastructure/db/prepared';
import { dateOfDay, dayOfDate, parsedJson, type LogRow } from './drying-records';
import { readingFactsOf, type AirRow, type PointRow } from './reading-facts';
import type { DryingLog } from './drying-status';
import type { EquipmentRow } from './equipment';

type Finding = components['schemas']['ReadinessFinding'];
type FindingRecord = Finding['record'];
type AreaView = DryingLog['areas'][number];

/** A finding before its severity and the record's unset fields are filled in. */
export type Draft = {
  check: Finding['check'];
  record: Partial<FindingRecord> & Pick<FindingRecord, 'type'>;
  message: string;
  fix: Finding['fix'];
};

/**
 * The catalog's lines that take a material out, by the material's reading metric. Left out on
 * purpose: ceiling and soffit drywall (the walls' drywall may still be read), baseboard kept for
 * reinstalling and detached cabinets (both may be dried and read off the wall), wood flooring
 * (wood readings after it are of the framing).
 */
const REMOVALS: Record<string, string[]> = {
  drywall: ['DEM-DW-2FT', 'DEM-DW-4FT', 'DEM-DW-FULL', 'MLD-DW'],
  carpet: ['DEM-CP', 'DEM-CP-GLUE', 'DEM-CP-C3', 'MLD-CP'],
  pad: ['DEM-PAD', 'DEM-CP-C3', 'MLD-CP'],
  insulation: ['DEM-INS-BATT', 'DEM-INS-CEIL', 'DEM-INS-BLOWN', 'DEM-INS-FOAM', 'MLD-INS'],
  subfloor: ['DEM-SUBFLR', 'DEM-SUBFLR-PLY'],
  baseboard: ['DEM-BASE-DISP'],
  ceiling_tile: ['DEM-ACT'],
};
/** Antimicrobial and category 2/3 work: the catalog's antimicrobial lines and those priced for grey or black water. */
const CATEGORY_WORK = [
  'CLN-ANTI',
  'CLN-ANTI-CAV',
  'CLN-ANTI-FOG',
  'CLN-DISINF',
  'CLN-SEWAGE',
  'CLN-CP-C2',
  'WTR-EXT-CP-C2',
  'WTR-EXT-CP-C3',
  'WTR-EXT-HS-C2',
  'WTR-EXT-HS-C3',
  'WTR-EXT-HVY-C3',
  'DEM-CP-C3',
];
/** Words with which a note says why category work was done (matched in any case, as parts of words). */
const WHY_WORDS = [
  'antimicrobial',
  'microbial',
  'disinfect',
  'sanitiz',
  'biocide',
  'category 2',
  'category 3',
  'cat 2',
  'cat 3',
  'grey water',
  'gray water',
  'black water',
  'sewage',
  'contaminat',
];
const REVIEWED_CODES = [...new Set([...Object.values(REMOVALS).flat(), ...CATEGORY_WORK])];

interface LineRow {
  id: string;
  code: string;
  description: string;
  note: string | null;
  room: string | null;
}
export interface DeskFacts {
  points: PointRow[];
  air: AirRow[];
  lines: LineRow[];
  waterCategory: number | null;
  /** Texts of the job's notes that speak of category work (WHY_WORDS) or name its codes. */
  jobNotes: string[];
}

/**
 * The job's lines of the codes reviewed, its water category, and its notes that may explain
 * category work: those are read only when such work is billed (matching a job's hundreds of notes
 * against every word took about 5 ms of the database).
 */
const JOB_FACTS = `with lines as (
  select l.id, l.code, l.description, l.note, r.name as room, e.created_at, l.position
    from estimate_lines l join estimates e on e.id = l.estimate_id left join estimate_rooms r on r.id = l.room_id
   where e.job_id = ? and l.code = any(?::text[]))
select
  (select coalesce(json_agg(json_build_object('id', id, 'code', code, 'description', description, 'note', note, 'room', room) order by created_at, position), '[]')
    from lines) as lines,
  (select j.water_category from jobs j where j.id = ?) as water_category,
  case when exists (select 1 from lines where code = any(?::text[])) then
    (select coalesce(json_agg(n.text), '[]') from notes n where n.job_id = ? and n.text ilike any(?::text[]))
  else '[]' end as job_notes`;

export async function deskFactsOf(
  db: Knex,
  jobId: string,
  log: Pick<LogRow, 'id' | 'revision'>,
): Promise<DeskFacts> {
  const patterns = [...WHY_WORDS, ...CATEGORY_WORK].map((word) => `%${word}%`);
  const [readings, { rows }] = await Promise.all([
    readingFactsOf(db, log),
    prepared(
      db.raw(JOB_FACTS, [jobId, REVIEWED_CODES, jobId, CATEGORY_WORK, jobId, patterns]),
      'desk_review_job',
    ) as Promise<{
      rows: Record<'lines' | 'water_category' | 'job_notes', unknown>[];
    }>,
  ]);
  const [row] = rows;
  return {
    ...readings,
    lines: parsedJson(row.lines),
    waterCategory: row.water_category === null ? null : Number(row.water_category),
    jobNotes: parsedJson(row.job_notes),
  };
}

/** A material point's readings, the latest of each day, with its goal. */
interface Point {
  area: AreaView;
  metric: string;
  point: string | null;
  goal: number;
  readings: { day: number; value: number }[];
}

/** The points of the log's areas, each with the goal the log judges it by. */
function pointsOf(log: DryingLog, rows: PointRow[]): Point[] {
  return rows.flatMap((row) => {
    const area = log.areas.find((a) => a.id === row.area_id);
    const status = area?.materials.find((m) => m.metric === row.metric && m.point === row.point);
    if (!area || !status) return [];
    const byDay = new Map<number, number>();
    for (const [i, day] of row.days.entries()) byDay.set(day, row.values[i] / 100);
    const readings = [...byDay].map(([day, value]) => ({ day, value }));
    return [{ area, metric: row.metric, point: row.point, goal: status.goal, readings }];
  });
}

const joinAnd = (items: string[]): string =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
const material = (metric: string): string => metric.replace('_', ' ');
const named = (p: Pick<Point, 'metric' | 'point'>): string =>
  `${material(p.metric)}${p.point ? ` '${p.point}'` : ''}`;
const against = (p: Point, value: number): string => `${named(p)} read ${value} against a goal of ${p.goal}`;
const lastDayOf = (points: Point[]): number => Math.max(0, ...points.map((p) => p.readings.at(-1)!.day));
/** A point's latest reading on or before a day. */
const latestBy = (p: Point, day: number) => p.readings.filter((r) => r.day <= day).at(-1);

/** Each area with a point above its goal on the area's last day of material readings. */
function notDryOnLastDay(log: DryingLog, points: Point[]): Draft[] {
  return log.areas.flatMap((area): Draft[] => {
    const mine = points.filter((p) => p.area === area);
    const last = lastDayOf(mine);
    const wet = mine.filter((p) => p.readings.at(-1)!.day === last && p.readings.at(-1)!.value > p.goal);
    if (wet.length === 0) return [];
    const date = dateOfDay(log.start_date, last);
    return [
      {
        check: 'not_dry_on_last_day',
        record: { type: 'area', id: area.id, name: area.name, day: last, date },
        message: `${area.name} ${joinAnd(wet.map((p) => against(p, p.readings.at(-1)!.value)))} on day ${last} (${date}), the last day monitored.`,
        fix: {
          tool: 'add_drying_readings',
          how: `Keep drying and record the readings that show ${area.name} at or below its goals.`,
        },
      },
    ];
  });
}

const KIND_NAMES: Record<EquipmentRow['kind'], [string, string]> = {
  air_mover: ['air mover', 'air movers'],
  dehumidifier: ['dehumidifier', 'dehumidifiers'],
  air_scrubber: ['air scrubber', 'air scrubbers'],
  heater: ['heater', 'heaters'],
  other: ['other unit', 'other units'],
};

function unitsNamed(units: EquipmentRow[]): string {
  const counts = new Map<EquipmentRow['kind'], number>();
  for (const unit of units) counts.set(unit.kind, (counts.get(unit.kind) ?? 0) + 1);
  return joinAnd([...counts].map(([kind, n]) => `${n} ${KIND_NAMES[kind][n === 1 ? 0 : 1]}`));
}

/** What dries a room: an air scrubber cleans the air and may leave while the room is wet. */
const DRYING_KINDS: EquipmentRow['kind'][] = ['air_mover', 'dehumidifier', 'heater'];

/** Drying units removed from an area, by area and day, while a point of it last read above its goal; a drying note on that area and day explains it. */
function removedWhileWet(log: DryingLog, units: EquipmentRow[], points: Point[]): Draft[] {
  const removals = new Map<string, EquipmentRow[]>();
  for (const unit of units) {
    if (unit.removed_on === null || !DRYING_KINDS.includes(unit.kind)) continue;
    const key = `${unit.area_id}|${unit.removed_on}`;
    removals.set(key, [...(removals.get(key) ?? []), unit]);
  }
  return [...removals.values()].flatMap((removed): Draft[] => {
    const { area: areaName, area_id: areaId, removed_on: date } = removed[0];
    const day = dayOfDate(log.start_date, date!);
    if (log.notes.some((note) => note.area === areaName && note.day === day)) return [];
    const wet = points.flatMap((p) => {
      const reading = p.area.id === areaId ? latestBy(p, day) : undefined;
      return reading && reading.value > p.goal
        ? [`${against(p, reading.value)}${reading.day === day ? '' : ` on day ${reading.day}`}`]
        : [];
    });
    if (wet.length === 0) return [];
    const verb = removed.length === 1 ? 'was' : 'were';
    return [
      {
        check: 'equipment_removed_while_wet',
        record: { type: 'equipment', id: removed[0].id, name: areaName, day, date },
        message: `${unitsNamed(removed)} ${verb} removed from ${areaName} on day ${day} (${date}) while its ${joinAnd(wet)}.`,
        fix: {
          tool: 'add_drying_note',
          how: `Say why they came out while it read wet, in a note on ${areaName} and day ${day}; if it read dry that day, record that reading with add_drying_readings.`,
        },
      },
    ];
  });
}

const materialOf = (code: string): string[] =>
  Object.entries(REMOVALS)
    .filter(([, codes]) => codes.includes(code))
    .map(([metric]) => metric);
const sameName = (a: string | null, b: string): boolean => a !== null && a.toLowerCase() === b.toLowerCase();

/** Read on two or more days, wet on the first, and still read on the area's last day: dried in place. */
function readInPlace(p: Point, lastDay: number): boolean {
  return p.readings.length > 1 && p.readings[0].value > p.goal && p.readings.at(-1)!.day === lastDay;
}

function inPlaceSpan(p: Point, log: DryingLog): string {
  const [first, last] = [p.readings[0], p.readings.at(-1)!];
  const dates = `${dateOfDay(log.start_date, first.day)} to ${dateOfDay(log.start_date, last.day)}`;
  return `${named(p)} was read drying in place on ${p.readings.length} days, day ${first.day} to day ${last.day} (${dates}), from ${first.value} to ${last.value} against a goal of ${p.goal}`;
}

/** A removal billed in a room while a point of that material was read drying in place there. */
function removalsReadInPlace(log: DryingLog, facts: DeskFacts, points: Point[]): Draft[] {
  return facts.lines.flatMap((line): Draft[] => {
    const area = log.areas.find((a) => sameName(line.room, a.name));
    if (!area) return [];
    const mine = points.filter((p) => p.area === area);
    const inPlace = mine.filter(
      (p) => materialOf(line.code).includes(p.metric) && readInPlace(p, lastDayOf(mine)),
    );
    if (inPlace.length === 0) return [];
    const last = inPlace[0].readings.at(-1)!.day;
    return [
      {
        check: 'removal_contradicts_log',
        record: {
          type: 'line',
          id: line.id,
          name: area.name,
          day: last,
          date: dateOfDay(log.start_date, last),
        },
        message: `${line.code} (${line.description}) is billed in ${area.name}, but its ${joinAnd(inPlace.map((p) => inPlaceSpan(p, log)))}.`,
        fix: {
          tool: 'remove_line_item',
          how: `If the ${material(inPlace[0].metric)} was dried in place, take the line off; if it was torn out, the log should not read it after.`,
        },
      },
    ];
  });
}

/** The reverse: points of a removable material last read wet before their area's last day, no longer read, with no removal billed there. */
function removalsNotBilled(log: DryingLog, facts: DeskFacts, points: Point[]): Draft[] {
  return log.areas.flatMap((area) => {
    const mine = points.filter((p) => p.area === area);
    const lastDay = lastDayOf(mine);
    return Object.keys(REMOVALS).flatMap((metric): Draft[] => {
      const dropped = mine.filter(
        (p) => p.metric === metric && p.readings.at(-1)!.day < lastDay && p.readings.at(-1)!.value > p.goal,
      );
      const billed = facts.lines.some(
        (l) => sameName(l.room, area.name) && materialOf(l.code).includes(metric),
      );
      if (dropped.length === 0 || billed) return [];
      const { day, value } = dropped[0].readings.at(-1)!;
      const date = dateOfDay(log.start_date, day);
      const told = dropped.map((p) => {
        const at = p.readings.at(-1)!;
        return `${named(p)} was last read on day ${at.day} (${dateOfDay(log.start_date, at.day)}) at ${at.value} against a goal of ${p.goal}`;
      });
      return [
        {
          check: 'removal_contradicts_log',
          record: { type: 'area', id: area.id, name: area.name, day, date },
          message: `${area.name} ${joinAnd(told)} and not read again, though ${area.name} was read to day ${lastDay}; no removal of ${material(metric)} is billed in ${area.name}.`,
          fix: {
            tool: 'add_line_items',
            how: `Bill the removal of the ${material(metric)} in ${area.name} if it was torn out (it read ${value} when last read); if it stayed, record its readings until it reads dry with add_drying_readings.`,
          },
        },
      ];
    });
  });
}

/** The loss's water category: the highest of the job's and its chambers'; null when none is recorded. */
function lossCategory(log: DryingLog, facts: DeskFacts): number | null {
  const known = [facts.waterCategory, ...log.chambers.map((c) => c.category)].filter(
    (category): category is number => category !== null,
  );
  return known.length ? Math.max(...known) : null;
}

const explains = (text: string, code: string): boolean => {
  const lower = text.toLowerCase();
  return lower.includes(code.toLowerCase()) || WHY_WORDS.some((word) => lower.includes(word));
};

/** Antimicrobial or category 2/3 work billed on a category 1 loss with no note saying why. */
function categoryWorkWithoutNote(log: DryingLog, facts: DeskFacts): Draft[] {
  if (lossCategory(log, facts) !== 1) return [];
  const notes = [...facts.jobNotes, ...log.notes.map((note) => note.text)];
  return facts.lines
    .filter((line) => CATEGORY_WORK.includes(line.code) && !line.note?.trim())
    .filter((line) => !notes.some((text) => explains(text, line.code)))
    .map((line) => ({
      check: 'category_work_without_note' as const,
      record: { type: 'line' as const, id: line.id, name: line.room },
      message: `${line.code} (${line.description}) is billed${line.room ? ` in ${line.room}` : ''} on a category 1 loss with no note saying why.`,
      fix: {
        tool: 'update_line_item',
        how: 'Give the line a note saying why (or add_note on the job); if the water was not clean, record its category with set_drying_chambers.',
      },
    }));
}

/** Which air was read where on which day, to look up: `day|location` and `day|location|area id`. */
function airRead(facts: DeskFacts): Set<string> {
  return new Set(
    facts.air.flatMap((air) => [`${air.day}|${air.location}`, `${air.day}|${air.location}|${air.area_id}`]),
  );
}

/** Each day with readings in an area but no outside or no unaffected air. */
function daysWithoutOutsideOrUnaffected(log: DryingLog, read: Set<string>): Draft[] {
  return log.days
    .filter((day) => day.read_areas.length > 0)
    .flatMap((day): Draft[] => {
      const missing = (['outside', 'unaffected'] as const).filter(
        (location) => !read.has(`${day.day}|${location}`),
      );
      if (missing.length === 0) return [];
      return [
        {
          check: 'day_without_outside_or_unaffected',
          record: { type: 'day', day: day.day, date: day.date },
          message: `Day ${day.day} (${day.date}) has readings but no ${missing.join(' or ')} air reading to compare the drying air with.`,
          fix: {
            tool: 'add_drying_readings',
            how: `Record that day's ${missing.join(' and ')} temperature and RH (location ${missing.join(', ')}; no area needed).`,
          },
        },
      ];
    });
}

/** Whether a unit was on site on a date: from the day placed to the day before it was removed (its placing day at least). */
const onSiteOn = (unit: EquipmentRow, date: string): boolean =>
  unit.placed_on <= date && (unit.removed_on === null || date < unit.removed_on || date === unit.placed_on);

/** Per area, the days it was read with a dehumidifier on site and no exhaust air read in it or its chamber. */
function dehumidifiersWithoutExhaust(log: DryingLog, units: EquipmentRow[], read: Set<string>): Draft[] {
  return log.areas.flatMap((area): Draft[] => {
    const dehus = units.filter((unit) => unit.area_id === area.id && unit.kind === 'dehumidifier');
    if (dehus.length === 0) return [];
    const chamber = log.chambers.find((c) => c.areas.some((a) => a.name === area.name));
    const served = log.areas
      .filter((a) => a === area || chamber?.areas.some((c) => c.name === a.name))
      .map((a) => a.id);
    const days = log.days.filter(
      (day) =>
        day.read_areas.includes(area.name) &&
        dehus.some((unit) => onSiteOn(unit, day.date)) &&
        !served.some((id) => read.has(`${day.day}|dehumidifier_exhaust|${id}`)),
    );
    if (days.length === 0) return [];
    const span = days.length === 1 ? days[0].date : `${days[0].date} to ${days.at(-1)!.date}`;
    return [
      {
        check: 'dehumidifier_without_exhaust',
        record: { type: 'area', id: area.id, name: area.name, day: days[0].day, date: days[0].date },
        message: `${area.name} had a dehumidifier on site on day${days.length === 1 ? '' : 's'} ${joinAnd(days.map((d) => String(d.day)))} (${span}) with no exhaust reading, so what it removed (its grain depression) is not shown.`,
        fix: {
          tool: 'add_drying_readings',
          how: `Record the exhaust temperature and RH of ${area.name}'s dehumidifier on those days (location dehumidifier_exhaust, area ${area.name}).`,
        },
      },
    ];
  });
}

/** The desk review's findings of a log, from its summary, its units and deskFactsOf. */
export function deskReview(log: DryingLog, units: EquipmentRow[], facts: DeskFacts): Draft[] {
  const points = pointsOf(log, facts.points);
  const read = airRead(facts);
  return [
    ...notDryOnLastDay(log, points),
    ...removedWhileWet(log, units, points),
    ...removalsReadInPlace(log, facts, points),
    ...removalsNotBilled(log, facts, points),
    ...categoryWorkWithoutNote(log, facts),
    ...daysWithoutOutsideOrUnaffected(log, read),
    ...dehumidifiersWithoutExhaust(log, units, read),
  ];
}
