/**
 * The rules of a job's carrier program profile (company/program-profiles.ts), checked for
 * check_claim_readiness. The drying log is the one claim-readiness reads, the air read each day
 * comes from the readings' kept facts (reading-facts.ts), and the rest from one statement of
 * grouped sub-selects run beside them (photos by room and day, the estimate's rooms and lines, the
 * job's notes, its forms and status), never a query per rule or day.
 */
import type { Knex } from 'knex';
import { prepared } from '../../infrastructure/db/prepared';
import type { components } from '../../../sdk/src/schema';
import {
  appliedProfileSql,
  type AppliedProfile,
  type ProgramRule,
  type ProgramRuleKind,
} from '../company/program-profiles';
import { dateOfDay, dayOfDate, type JobRef, type LogRow } from './drying-records';
import type { DryingLog } from './drying-status';
import { readingFactsOf, type AirRow } from './reading-facts';
import { formStateSql, type FormState } from '../forms/form-listing';
import type { FormKind } from '../forms/template-text';

type Finding = components['schemas']['ReadinessFinding'];
type Rule<K extends ProgramRuleKind> = Extract<ProgramRule, { kind: K }>;
type Draft = Pick<Finding, 'message' | 'fix'> & {
  record: Partial<Finding['record']> & Pick<Finding['record'], 'type'>;
};

interface PhotoGroup {
  room: string;
  date: string;
  photos: number;
  before: boolean;
  after: boolean;
}
interface EstimateLine {
  room: string;
  id: string | null;
  code: string | null;
  description: string | null;
}

/** A form of a kind a rule asks for, not voided, newest first. */
interface KindForm {
  id: string;
  kind: FormKind;
  state: FormState;
  /** When it was asked for, in the company's time ("Nov 20, 2026"). */
  asked_on: string;
}
/** The job's status as the certificate rule reads it. */
interface JobStatusFacts {
  name: string;
  /** The last status of the company's board. */
  last: boolean;
  cancelled: boolean;
}

/** What the rules read besides the log; each part is fetched only when a rule of the profile needs it. */
interface RuleFacts {
  log: DryingLog | null;
  photos: PhotoGroup[];
  lines: EstimateLine[];
  noteTexts: string[];
  /** `day|location|area` of each air reading (area '' for the building's). */
  air: Set<string>;
  dateOfLoss: string | null;
  forms: KindForm[];
  status: JobStatusFacts | null;
}

/**
 * The profile that applies to the job and, only when there is one, everything its rules read
 * besides the log and its readings (reading-facts.ts), as one statement: each part is a
 * sub-select that PostgreSQL runs only when its CASE is reached, and the job's notes only for a
 * rule that reads them. The target is materialised so that the profile is looked up once, not
 * once a part. Binding: the job's id.
 */
const PROGRAM_FACTS_SQL = `
with target as materialized (select j.*, ${appliedProfileSql(true)} as profile from jobs j where j.id = ?)
select t.profile,
  case when t.profile is not null then to_char(t.date_of_loss, 'YYYY-MM-DD') end as date_of_loss,
  case when t.profile is not null then (
    select coalesce(json_agg(g), '[]') from (
      select lower(p.room) as room, to_char(p.taken_at at time zone c.timezone, 'YYYY-MM-DD') as date,
             count(*)::int as photos, bool_or(p.caption ilike '%before%') as before,
             bool_or(p.caption ilike '%after%') as after
        from photos p join companies c on c.id = p.company_id
       where p.job_id = t.id and p.room is not null
       group by 1, 2) g) end as photos,
  case when t.profile is not null then (
    select coalesce(json_agg(x order by x.created_at, x.position, x.id), '[]') from (
      select r.name as room, l.id, l.code, l.description, e.created_at, r.position
        from estimate_rooms r join estimates e on e.id = r.estimate_id
        left join estimate_lines l on l.room_id = r.id
       where e.job_id = t.id) x) end as lines,
  case when t.profile::jsonb -> 'rules' @> '[{"kind": "note_for_line_codes"}]' then (
    select coalesce(json_agg(n.text), '[]') from notes n where n.job_id = t.id) end as notes,
  case when t.profile::jsonb -> 'rules' @> '[{"kind": "signed_work_authorization"}]'
         or t.profile::jsonb -> 'rules' @> '[{"kind": "certificate_of_completion"}]' then (
    select coalesce(json_agg(json_build_object('id', f.id, 'kind', f.kind, 'state', ${formStateSql('f')},
                      'asked_on', to_char(f.created_at at time zone c.timezone, 'Mon FMDD, YYYY'))
                    order by f.created_at desc, f.id desc), '[]')
      from job_forms f join companies c on c.id = f.company_id
     where f.company_id = t.company_id and f.job_id = t.id and f.state <> 'voided'
       and f.kind in ('work_authorization', 'certificate_of_completion')) end as forms,
  case when t.profile::jsonb -> 'rules' @> '[{"kind": "certificate_of_completion"}]' then (
    select json_build_object('name', s.name, 'cancelled', t.cancelled_at is not null,
             'last', s.position = (select max(b.position) from statuses b where b.company_id = s.company_id))
      from statuses s where s.id = t.status_id) end as status
from target t`;

interface FactsRow {
  profile: AppliedProfile | null;
  date_of_loss: string | null;
  photos: PhotoGroup[] | null;
  lines: EstimateLine[] | null;
  notes: string[] | null;
  forms: KindForm[] | null;
  status: JobStatusFacts | null;
}

const airKey = (day: number, location: string, area: string | null) =>
  `${day}|${location}|${(area ?? '').toLowerCase()}`;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
const upload = (room: string) => ({
  tool: 'get_photo_upload_link',
  how: `Make a link for the technician, or upload_job_photos, with the room ${room}.`,
});

/** The estimates' rooms, once each (any case), in the estimates' order. */
function estimateRooms(facts: RuleFacts): string[] {
  const rooms: string[] = [];
  for (const line of facts.lines)
    if (!rooms.some((room) => room.toLowerCase() === line.room.toLowerCase())) rooms.push(line.room);
  return rooms;
}

function photosPerRoom(rule: Rule<'photos_per_room'>, facts: RuleFacts): Draft[] {
  return estimateRooms(facts).flatMap((room) => {
    const count = facts.photos
      .filter((group) => group.room === room.toLowerCase())
      .reduce((sum, group) => sum + group.photos, 0);
    if (count >= rule.min_photos) return [];
    return [
      {
        record: { type: 'room', name: room },
        message: `${room} has ${plural(count, 'photo')} filed in it; the program asks for at least ${rule.min_photos} labelled with the room.`,
        fix: upload(room),
      },
    ];
  });
}

const hasPhoto = (facts: RuleFacts, room: string, test: (group: PhotoGroup) => boolean) =>
  facts.photos.some((group) => group.room === room.toLowerCase() && test(group));

function equipmentPhotographed(facts: RuleFacts): Draft[] {
  const placements = new Map<string, { area: string; date: string; units: number; id: string }>();
  for (const unit of facts.log?.equipment.units ?? []) {
    const key = `${unit.area.toLowerCase()}|${unit.placed_on}`;
    const seen = placements.get(key);
    if (seen) seen.units += 1;
    else placements.set(key, { area: unit.area, date: unit.placed_on, units: 1, id: unit.id });
  }
  return [...placements.values()]
    .filter((placed) => !hasPhoto(facts, placed.area, (group) => group.date === placed.date))
    .map((placed) => ({
      record: {
        type: 'area',
        id: placed.id,
        name: placed.area,
        day: facts.log ? dayOfDate(facts.log.start_date, placed.date) : null,
        date: placed.date,
      },
      message: `${placed.area}: ${plural(placed.units, 'unit')} placed on ${placed.date} with no photo of ${placed.area} that day; the program asks for the equipment photographed as placed.`,
      fix: upload(placed.area),
    }));
}

function beforeAndAfter(facts: RuleFacts): Draft[] {
  const log = facts.log;
  if (!log) return [];
  return log.areas.flatMap((area): Draft[] => {
    const first = log.days.find((day) => day.read_areas.includes(area.name))?.day;
    if (first === undefined || area.latest_day === null) return [];
    const firstDate = dateOfDay(log.start_date, first);
    const lastDate = dateOfDay(log.start_date, area.latest_day);
    const missing = [
      hasPhoto(facts, area.name, (group) => group.before || group.date <= firstDate)
        ? null
        : `"before" photo (on or before ${firstDate}, its first reading)`,
      hasPhoto(facts, area.name, (group) => group.after || group.date >= lastDate)
        ? null
        : `"after" photo (on or after ${lastDate}, its last reading)`,
    ].filter((text): text is string => text !== null);
    if (missing.length === 0) return [];
    return [
      {
        record: { type: 'area', id: area.id, name: area.name },
        message: `${area.name} has no ${missing.join(' and no ')}.`,
        fix: upload(area.name),
      },
    ];
  });
}

/** Each chamber's air is read in one of its areas; without chambers, each area read that day is. */
function dailyAtmospherics(facts: RuleFacts): Draft[] {
  const log = facts.log;
  if (!log) return [];
  return log.days
    .filter((day) => day.readings > 0 && day.monitored)
    .flatMap((day): Draft[] => {
      const has = (location: string, area: string | null) => facts.air.has(airKey(day.day, location, area));
      const missing = [
        has('outside', null) ? null : 'outside air',
        has('unaffected', null) ? null : 'unaffected air',
        ...(log.chambers.length > 0
          ? log.chambers
              .filter((chamber) => !chamber.areas.some((area) => has('affected', area.name)))
              .map((chamber) => `${chamber.name}'s air`)
          : day.read_areas.filter((area) => !has('affected', area)).map((area) => `${area}'s air`)),
      ].filter((text): text is string => text !== null);
      if (missing.length === 0) return [];
      return [
        {
          record: { type: 'day', day: day.day, date: day.date },
          message: `Day ${day.day} (${day.date}): no ${missing.join(', ')}; the program asks for the atmospherics every monitored day.`,
          fix: {
            tool: 'add_drying_readings',
            how: "Record that day's temperature and RH outside and in an unaffected room (rows with no area), and in each chamber.",
          },
        },
      ];
    });
}

type Material = components['schemas']['DryingMetric'];
/** Words of a line's description that name a material a moisture meter reads. */
const MATERIAL_WORDS: [Material, RegExp][] = [
  ['drywall', /drywall|sheetrock|gypsum/i],
  ['pad', /\bpad\b|padding/i],
  ['carpet', /carpet(?!\s*pad)/i],
  ['baseboard', /baseboard/i],
  ['insulation', /insulation/i],
  ['subfloor', /subfloor|sub-floor/i],
  ['cabinet', /cabinet/i],
  ['concrete', /concrete|slab/i],
  ['wood', /hardwood|wood floor/i],
  ['ceiling_tile', /ceiling tile|acoustic tile/i],
];

function moisturePoints(facts: RuleFacts): Draft[] {
  return (facts.log?.areas ?? []).flatMap((area): Draft[] => {
    const billed = facts.lines
      .filter((line) => line.room.toLowerCase() === area.name.toLowerCase())
      .flatMap((line) => MATERIAL_WORDS.filter(([, words]) => words.test(line.description ?? '')))
      .map(([material]) => material);
    const read = area.materials.map((status) => status.metric);
    const materials = [...new Set([...read, ...billed])];
    const missing = materials.filter(
      (material) => !area.materials.some((status) => status.metric === material && status.point?.trim()),
    );
    if (missing.length === 0) return [];
    const said = missing.map((material) =>
      read.includes(material)
        ? `${material} (read without naming the point)`
        : `${material} (billed, never read)`,
    );
    return [
      {
        record: { type: 'area', id: area.id, name: area.name },
        message: `${area.name}: no moisture point for ${said.join(', ')}; the program asks for a named point per affected material.`,
        fix: {
          tool: 'add_drying_readings',
          how: `Read each material with the point read (e.g. north wall 2 ft).`,
        },
      },
    ];
  });
}

function noteForLineCodes(rule: Rule<'note_for_line_codes'>, facts: RuleFacts): Draft[] {
  const listed = rule.codes.map((code) => code.trim().toUpperCase());
  const notes = facts.noteTexts.map((text) => text.toUpperCase());
  return facts.lines.flatMap((line): Draft[] => {
    const code = line.code?.toUpperCase();
    if (!code || !listed.some((start) => code.startsWith(start))) return [];
    if (notes.some((text) => text.includes(code))) return [];
    return [
      {
        record: { type: 'line', id: line.id, name: line.room },
        message: `${line.code} (${line.room}) is billed with no note naming it; the program asks why it was needed.`,
        fix: { tool: 'add_note', how: `Add a note that names ${line.code} and says why it was needed.` },
      },
    ];
  });
}

function firstReadingWithin(rule: Rule<'first_reading_within_hours'>, facts: RuleFacts): Draft[] {
  const log = facts.log;
  const loss = facts.dateOfLoss;
  if (!log) return [];
  if (loss === null)
    return [
      {
        record: { type: 'day' },
        message: `The job has no date of loss, so the program's first reading within ${rule.hours} hours cannot be shown.`,
        fix: { tool: 'update_job_overview', how: 'Set date_of_loss.' },
      },
    ];
  const first = log.days.find((day) => day.readings > 0);
  const firstDate = first ? first.date : dateOfDay(log.start_date, log.today_day);
  const hours = (dayOfDate(loss, firstDate) - 1) * 24;
  if (hours <= rule.hours) return [];
  return [
    {
      record: { type: 'day', day: first?.day ?? null, date: first ? firstDate : null },
      message: `${first ? `The first reading (${firstDate})` : `No reading yet, today (${firstDate}),`} is ${hours} hours after the date of loss (${loss}); the program asks for one within ${rule.hours}.`,
      fix: {
        tool: 'add_note',
        how: 'Say in a note why the first visit came later (for example, the loss was reported late).',
      },
    },
  ];
}

const FORM_WORDS: Record<'work_authorization' | 'certificate_of_completion', string> = {
  work_authorization: 'work authorization',
  certificate_of_completion: 'certificate of completion',
};

/**
 * A signed form of `kind`, else one finding naming the newest one asked for and not signed (its
 * state and day), or that none was asked for.
 */
function signedForm(kind: keyof typeof FORM_WORDS, why: string, facts: RuleFacts): Draft[] {
  const forms = facts.forms.filter((form) => form.kind === kind);
  if (forms.some((form) => form.state === 'signed')) return [];
  const words = FORM_WORDS[kind];
  const newest = forms[0];
  const asked = newest
    ? ` The one asked for on ${newest.asked_on} is ${newest.state === 'expired' ? 'expired unsigned' : newest.state}.`
    : '';
  return [
    {
      record: { type: 'form', id: newest?.id ?? null, name: kind },
      message: `${why} but no signed ${words}.${asked}`,
      fix: {
        tool: 'request_signature',
        how: `Ask the customer to sign the company's ${words} template (list_form_templates), on the technician's phone or through the link sent.`,
      },
    },
  ];
}

function signedWorkAuthorization(facts: RuleFacts): Draft[] {
  if (!facts.log) return [];
  return signedForm('work_authorization', 'The job has a drying log', facts);
}

/** A finished job: in one of the rule's statuses (any case), else in the board's last one; never a cancelled one. */
function certificateOfCompletion(rule: Rule<'certificate_of_completion'>, facts: RuleFacts): Draft[] {
  const status = facts.status;
  if (!status || status.cancelled) return [];
  const finished = rule.statuses
    ? rule.statuses.some((name) => name.trim().toLowerCase() === status.name.toLowerCase())
    : status.last;
  if (!finished) return [];
  return signedForm('certificate_of_completion', `The job is ${status.name}`, facts);
}

function draftsOf(rule: ProgramRule, facts: RuleFacts): Draft[] {
  switch (rule.kind) {
    case 'photos_per_room':
      return photosPerRoom(rule, facts);
    case 'equipment_photographed':
      return equipmentPhotographed(facts);
    case 'before_and_after_photos':
      return beforeAndAfter(facts);
    case 'daily_atmospherics':
      return dailyAtmospherics(facts);
    case 'moisture_point_per_material':
      return moisturePoints(facts);
    case 'note_for_line_codes':
      return noteForLineCodes(rule, facts);
    case 'first_reading_within_hours':
      return firstReadingWithin(rule, facts);
    case 'signed_work_authorization':
      return signedWorkAuthorization(facts);
    case 'certificate_of_completion':
      return certificateOfCompletion(rule, facts);
  }
}

export interface ProgramRules {
  profile: AppliedProfile;
  facts: Omit<RuleFacts, 'log' | 'air'> & { air: AirRow[] };
}

/**
 * The profile that applies to the job and what its rules read besides the log, in one statement
 * run beside the reading of the log: a profile adds no round trip. Null without a profile.
 */
export async function loadProgramRules(
  db: Knex,
  job: JobRef,
  logRow: LogRow | null,
): Promise<ProgramRules | null> {
  const [{ rows }, readings] = await Promise.all([
    prepared(db.raw(PROGRAM_FACTS_SQL, [job.id]), 'program_rule_facts') as Promise<{ rows: FactsRow[] }>,
    logRow ? readingFactsOf(db, logRow) : null,
  ]);
  const row = rows[0];
  if (!row?.profile || row.profile.rules.length === 0) return null;
  return {
    profile: row.profile,
    facts: {
      photos: row.photos ?? [],
      lines: row.lines ?? [],
      noteTexts: row.notes ?? [],
      air: readings?.air ?? [],
      dateOfLoss: row.date_of_loss,
      forms: row.forms ?? [],
      status: row.status,
    },
  };
}

/** The findings of the profile's rules (none without one), each naming its rule and profile. */
export function programRuleFindings(rules: ProgramRules | null, log: DryingLog | null): Finding[] {
  if (!rules) return [];
  const { profile } = rules;
  const areaNames = new Map(log?.areas.map((area) => [area.id, area.name]));
  const facts: RuleFacts = {
    ...rules.facts,
    log,
    air: new Set(
      rules.facts.air.map((air) =>
        airKey(air.day, air.location, air.area_id && (areaNames.get(air.area_id) ?? null)),
      ),
    ),
    noteTexts: [...rules.facts.noteTexts, ...(log?.notes.map((note) => note.text) ?? [])],
  };
  return profile.rules.flatMap((rule) =>
    draftsOf(rule, facts).map((draft) => ({
      check: 'program_rule' as const,
      severity: rule.severity ?? 'medium',
      record: { id: null, name: null, day: null, date: null, ...draft.record },
      message: `${profile.name}: ${draft.message}`,
      fix: draft.fix,
      rule: rule.kind,
      profile: { id: profile.id, name: profile.name },
    })),
  );
}
