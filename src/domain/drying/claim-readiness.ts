/**
 * What a carrier's desk reviewer would question before paying a mitigation invoice: days not
 * monitored, billing against the equipment and the dry days, goals without a reference, chambers
 * off their plan, unexplained skips, a category 1 loss not reviewed, rooms without photos, and the
 * log read against itself and the estimate (desk-review.ts).
 * Each finding names its record, why, how severe, and the tool that fixes it. The drying log is
 * read as get_drying_log reads it (its kept summary); the rest is a few grouped queries.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import type { Caller } from '../../platform/caller';
import { notFound } from '../../platform/errors';
import { dateOfDay, dayOfDate, type BilledLine, type JobRef, type LogRow } from './drying-records';
import { findLogToRead, readLog } from './read-log';
import type { DryingLog } from './drying-status';
import { deskFactsOf, deskReview, type Draft } from './desk-review';
import { loadProgramRules, programRuleFindings } from './program-rules';

type ClaimReadiness = components['schemas']['ClaimReadiness'];
type Finding = components['schemas']['ReadinessFinding'];
type Check = Finding['check'];
type Severity = Finding['severity'];

/** The order of the checks, and each one's severity: findings are listed by severity, then in this order. */
const CHECKS: [Check, Severity][] = [
  ['monitored_day_without_readings', 'high'],
  ['readings_stop_before_billed', 'high'],
  ['not_dry_on_last_day', 'high'],
  ['equipment_removed_while_wet', 'high'],
  ['billed_past_dry', 'high'],
  ['billed_not_placed', 'high'],
  ['category_not_reviewed', 'high'],
  ['removal_contradicts_log', 'high'],
  ['category_work_without_note', 'high'],
  ['equipment_not_billed', 'medium'],
  ['equipment_outside_plan', 'medium'],
  ['no_unaffected_reference', 'medium'],
  ['day_without_outside_or_unaffected', 'medium'],
  ['dehumidifier_without_exhaust', 'medium'],
  ['skipped_day_without_reason', 'medium'],
  ['billed_room_without_photo', 'medium'],
  ['room_with_few_photos', 'low'],
];
const SEVERITIES: Severity[] = ['high', 'medium', 'low'];
/** S500 asks for category 1 water to be reviewed when it sat longer than 48 hours: dates more than 2 days apart. */
const CATEGORY_ONE_DAYS = 2;
const FEWEST_PHOTOS = 2;

interface Facts {
  reasonlessSkips: { id: string; area: string | null; day: number }[];
  photosByRoom: Map<string, number>;
  estimateRooms: string[];
  dateOfLoss: string | null;
}

async function factsOf(db: Knex, job: JobRef, log: LogRow | null): Promise<Facts> {
  const [reasonlessSkips, photos, rooms, jobRow] = await Promise.all([
    log
      ? db('drying_skips as s')
          .leftJoin('drying_areas as a', 'a.id', 's.area_id')
          .where('s.log_id', log.id)
          .whereNull('s.reason')
          .orderBy(['s.day', 's.id'])
          .select('s.id', 'a.name as area', 's.day')
      : [],
    db('photos')
      .where({ job_id: job.id })
      .whereNotNull('room')
      .groupBy(db.raw('lower(room)'))
      .select(db.raw('lower(room) as room'), db.raw('count(*)::int as photos')),
    db('estimate_rooms as r')
      .join('estimates as e', 'e.id', 'r.estimate_id')
      .where('e.job_id', job.id)
      .orderBy(['e.created_at', 'r.position'])
      .select('r.name'),
    db('jobs').where({ id: job.id }).first(db.raw("to_char(date_of_loss, 'YYYY-MM-DD') as date_of_loss")),
  ]);
  return {
    reasonlessSkips: reasonlessSkips as Facts['reasonlessSkips'],
    photosByRoom: new Map(
      (photos as { room: string; photos: number }[]).map((row) => [row.room, Number(row.photos)]),
    ),
    estimateRooms: (rooms as { name: string }[]).map((row) => row.name),
    dateOfLoss: jobRow?.date_of_loss ?? null,
  };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Each day before today on which an area still drying, and not skipped, has no reading (today's may still come). */
function daysWithoutReadings(log: DryingLog): Draft[] {
  return log.days
    .filter((day) => day.day < log.today_day)
    .flatMap((day) => {
      const missing = log.areas.filter(
        (area) =>
          day.day <= area.planned_days &&
          (area.dry_day === null || day.day <= area.dry_day) &&
          !day.skipped_areas.includes(area.name) &&
          !day.read_areas.includes(area.name),
      );
      if (missing.length === 0) return [];
      const names = missing.map((area) => area.name).join(', ');
      return [
        {
          check: 'monitored_day_without_readings' as const,
          record: { type: 'day' as const, day: day.day, date: day.date },
          message: `Day ${day.day} (${day.date}): no readings in ${names}. A reviewer cuts a drying day that was not monitored.`,
          fix: {
            tool: 'add_drying_readings',
            how: `Record that day's readings in ${names}; if nobody went, skip_drying_day with the reason.`,
          },
        },
      ];
    });
}

/** The last day each area's lines of the log's estimate bill units a day for (a line of its own quantity states no days). */
function lastBilledDay(billed: BilledLine[], estimateId: string | null, area: string): number {
  return Math.max(
    0,
    ...billed
      .filter((line) => line.estimate_id === estimateId && same(line.room, area))
      .map((line) => line.drying_days ?? 0),
  );
}

function readingsStopEarly(log: DryingLog, billed: BilledLine[]): Draft[] {
  return log.areas.flatMap((area) => {
    const last = lastBilledDay(billed, log.estimate_id, area.name);
    const latest = area.latest_day ?? 0;
    if (area.dry || last <= latest || last >= log.today_day) return [];
    return [
      {
        check: 'readings_stop_before_billed' as const,
        record: {
          type: 'area' as const,
          name: area.name,
          day: latest || null,
          date: latest ? dateOfDay(log.start_date, latest) : null,
        },
        message: `${area.name}: ${latest ? `readings stop on day ${latest}` : 'no readings'}, but its lines bill ${last} days and it has not read dry.`,
        fix: {
          tool: 'add_drying_readings',
          how: `Record the readings of the later days, or shorten the area's plan with update_drying_settings so that its lines bill the days monitored.`,
        },
      },
    ];
  });
}

/** The log's billing warnings, as findings. */
function billingFindings(log: DryingLog): Draft[] {
  return log.warnings.flatMap((warning): Draft[] => {
    if (warning.code === 'billed_past_dry') {
      return [
        {
          check: 'billed_past_dry',
          record: {
            type: 'line',
            id: warning.line_id ?? null,
            name: warning.area,
            day: warning.dry_day ?? null,
            date: warning.dry_day ? dateOfDay(log.start_date, warning.dry_day) : null,
          },
          message: warning.message,
          fix: {
            tool: 'update_drying_settings',
            how: `Set ${warning.area}'s planned days to ${warning.dry_day}, its dry day; its day-billed lines re-price.`,
          },
        },
      ];
    }
    if (warning.code === 'billed_not_placed' || warning.code === 'equipment_not_billed') {
      const over = warning.code === 'billed_not_placed';
      return [
        {
          check: warning.code,
          record: { type: 'area', id: warning.line_ids?.[0] ?? null, name: warning.area },
          message: warning.message,
          fix: over
            ? {
                tool: 'update_line_item',
                how: `Bill the ${warning.equipment_days} unit-days placed, or record units placed but not logged with place_equipment.`,
              }
            : {
                tool: 'add_line_items',
                how: `Bill the ${warning.equipment_days} unit-days with a day-billed line in ${warning.area} (or raise units_per_day of its line with update_line_item).`,
              },
        },
      ];
    }
    return [];
  });
}

function chamberFindings(log: DryingLog, facts: Facts): Draft[] {
  const offPlan = log.chambers
    .filter((chamber) => chamber.flags.length > 0)
    .map(
      (chamber): Draft => ({
        check: 'equipment_outside_plan',
        record: { type: 'chamber', id: chamber.id, name: chamber.name },
        message: chamber.flags.join(' '),
        fix: {
          tool: 'set_drying_chambers',
          how: 'Give the chamber a note saying why, or add_drying_note on one of its areas for today (or move units with place_equipment and remove_equipment).',
        },
      }),
    );
  const loss = facts.dateOfLoss;
  if (loss === null) return offPlan;
  const late = log.chambers.flatMap((chamber): Draft[] => {
    if (chamber.category !== 1 || chamber.category_reviewed_on !== null) return [];
    const first =
      log.days.find((day) => day.read_areas.some((name) => chamber.areas.some((a) => a.name === name)))
        ?.day ?? Infinity;
    const firstDate = Number.isFinite(first) ? dateOfDay(log.start_date, first) : null;
    const daysAfter = dayOfDate(loss, firstDate ?? dateOfDay(log.start_date, log.today_day)) - 1;
    if (daysAfter <= CATEGORY_ONE_DAYS) return [];
    return [
      {
        check: 'category_not_reviewed',
        record: {
          type: 'chamber',
          id: chamber.id,
          name: chamber.name,
          day: firstDate ? first : null,
          date: firstDate,
        },
        message: `${chamber.name} is category 1, but ${firstDate ? `its first reading (${firstDate})` : 'no reading yet, today,'} is ${daysAfter} days after the loss (${loss}): water left over 48 hours may no longer be clean.`,
        fix: {
          tool: 'set_drying_chambers',
          how: 'Review the category: set it as found, with category_reviewed_on.',
        },
      },
    ];
  });
  return [...late, ...offPlan];
}

function referenceFindings(log: DryingLog): Draft[] {
  return log.areas.flatMap((area) => {
    const defaults = [
      ...new Set(area.materials.filter((m) => m.goal_source === 'default').map((m) => m.metric)),
    ];
    if (defaults.length === 0) return [];
    return [
      {
        check: 'no_unaffected_reference' as const,
        record: { type: 'area' as const, id: area.id, name: area.name },
        message: `${area.name}: ${defaults.join(', ')} ${defaults.length === 1 ? 'is' : 'are'} judged against the service's default goal; no unaffected reference was read.`,
        fix: {
          tool: 'add_drying_readings',
          how: `Read the same material in an unaffected place, with reference: true.`,
        },
      },
    ];
  });
}

function skipFindings(log: DryingLog, facts: Facts): Draft[] {
  return facts.reasonlessSkips.map((skip) => ({
    check: 'skipped_day_without_reason' as const,
    record: {
      type: 'skip' as const,
      id: skip.id,
      name: skip.area,
      day: skip.day,
      date: dateOfDay(log.start_date, skip.day),
    },
    message: `Day ${skip.day} was not monitored${skip.area ? ` in ${skip.area}` : ''}, with no reason given.`,
    fix: {
      tool: 'skip_drying_day',
      how: `Send the same day${skip.area ? ' and area' : ''} again with the reason.`,
    },
  }));
}

function photoFindings(log: DryingLog | null, billed: BilledLine[], facts: Facts): Draft[] {
  const rooms: string[] = [];
  for (const name of [...(log?.areas.map((area) => area.name) ?? []), ...facts.estimateRooms])
    if (!rooms.some((room) => same(room, name))) rooms.push(name);
  const photosOf = (room: string) => facts.photosByRoom.get(room.toLowerCase()) ?? 0;
  const billedRooms = rooms.filter(
    (room) => billed.some((line) => same(line.room, room)) && photosOf(room) === 0,
  );
  const upload = {
    tool: 'get_photo_upload_link',
    how: 'Make a link for the technician, or upload_job_photos, with the room.',
  };
  return [
    ...billedRooms.map(
      (room): Draft => ({
        check: 'billed_room_without_photo',
        record: { type: 'room', name: room },
        message: `${room} has day-billed lines but no photo.`,
        fix: upload,
      }),
    ),
    ...rooms
      .filter((room) => photosOf(room) < FEWEST_PHOTOS && !billedRooms.includes(room))
      .map(
        (room): Draft => ({
          check: 'room_with_few_photos',
          record: { type: 'room', name: room },
          message: `${room} has ${photosOf(room)} photo${photosOf(room) === 1 ? '' : 's'}; a reviewer looks for at least ${FEWEST_PHOTOS}.`,
          fix: upload,
        }),
      ),
  ];
}

const severityOf = (check: Check): Severity => CHECKS.find(([name]) => name === check)![1];
/** A program rule's finding (not in CHECKS: its rule sets its severity) comes after the service's own. */
const rank = (check: Check): number => {
  const at = CHECKS.findIndex(([name]) => name === check);
  return at < 0 ? CHECKS.length : at;
};

/** The findings of the job named by `ref` (id or number), most severe first; 404 for a job not of the caller's company. */
export async function checkClaimReadiness(db: Knex, caller: Caller, ref: string): Promise<ClaimReadiness> {
  const found = await findLogToRead(db, caller, ref);
  if (!found) throw notFound('job');
  const { job, log: row, billed } = found;
  const [log, facts, desk, programRules] = await Promise.all([
    row ? readLog(db, job, row, undefined, { parts: found, fromCache: true }) : null,
    factsOf(db, job, row),
    row ? deskFactsOf(db, job.id, row) : null,
    loadProgramRules(db, job, row),
  ]);
  const drafts = [
    ...(log
      ? [
          ...daysWithoutReadings(log),
          ...readingsStopEarly(log, billed),
          ...billingFindings(log),
          ...chamberFindings(log, facts),
          ...referenceFindings(log),
          ...skipFindings(log, facts),
          ...(desk ? deskReview(log, found.units, desk) : []),
        ]
      : []),
    ...photoFindings(log, billed, facts),
  ];
  const findings: Finding[] = drafts
    .map<Finding>((draft) => ({
      check: draft.check,
      severity: severityOf(draft.check),
      record: { id: null, name: null, day: null, date: null, ...draft.record },
      message: draft.message,
      fix: draft.fix,
      rule: null,
      profile: null,
    }))
    .concat(programRuleFindings(programRules, log))
    .sort(
      (a, b) =>
        SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || rank(a.check) - rank(b.check),
    );
  const count = (severity: Severity) => findings.filter((finding) => finding.severity === severity).length;
  return {
    job,
    ready: count('high') === 0,
    counts: { high: count('high'), medium: count('medium'), low: count('low') },
    findings,
  };
}
