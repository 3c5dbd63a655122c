/**
 * What the service computes from a drying log's readings, never typed by people: the air's GPP,
 * dew point and vapour pressure, grain depression, each material's dry goal and whether it is
 * met, the day each area read dry, and the warnings (a dehumidifier adding moisture, equipment
 * billed past the dry day). The rules are the ones get_drying_log states in the spec.
 */
import type { components } from '../../../sdk/src/schema';
import { airProperties, kpaToInHg, pressureAtKpa } from './psychrometrics';
import { DEFAULT_DRY_GOALS, isMaterial, type MaterialMetric, type ReadingLocation } from './metrics';
import { onSiteRefOf } from '../people/on-site';
import {
  dateOfDay,
  dayOfDate,
  plannedDaysOf,
  type AreaRow,
  type BilledLine,
  type DryingRecord,
  type ReadingRow,
} from './drying-records';

type Schemas = components['schemas'];
export type AirCondition = Schemas['AirCondition'];
export type MaterialStatus = Schemas['MaterialStatus'];
export type DryingLog = Schemas['DryingLog'];
/** A log as its readings make it; its equipment (which counts today) and chambers (sized from the estimate) are added to each answer. */
export type DryingLogWithoutEquipment = Omit<DryingLog, 'equipment' | 'chambers' | 'chamber_air' | 'billing'>;
type DryingWarning = Schemas['DryingWarning'];
type GrainDepression = Schemas['GrainDepression'];

const round = (value: number, places: number): number => Number(value.toFixed(places));
const readingValue = (reading: Pick<ReadingRow, 'value_x100'>): number => reading.value_x100 / 100;

/** The pressure the log's air is computed at, from its elevation (else the company's). */
export function elevationOf(record: Pick<DryingRecord, 'log'>): {
  feet: number;
  source: 'log' | 'company';
  pressureKpa: number;
} {
  const own = record.log.elevation_ft;
  const feet = own ?? record.log.company_elevation_ft;
  return { feet, source: own === null ? 'company' : 'log', pressureKpa: pressureAtKpa(feet) };
}

type AirReading = Pick<ReadingRow, 'area_id' | 'day' | 'location' | 'metric' | 'value_x100'> & {
  equipment_id?: string | null;
};
type MaterialReading = Pick<
  ReadingRow,
  'area_id' | 'day' | 'location' | 'metric' | 'value_x100' | 'point' | 'reference' | 'meter'
>;

/** Air read at one place on one day: the latest temperature and RH there, with computed values. */
export function airConditions(
  readings: AirReading[],
  areaName: (id: string | null) => string | null,
  pressureKpa: number,
): AirCondition[] {
  const byPlace = new Map<
    string,
    {
      area_id: string | null;
      day: number;
      location: ReadingLocation;
      unit: string | null;
      temp?: number;
      rh?: number;
    }
  >();
  for (const r of readings) {
    if (r.metric !== 'temp_f' && r.metric !== 'rh_pct') continue;
    const unit = r.equipment_id ?? null;
    const key = `${r.area_id ?? ''}|${r.day}|${r.location}|${unit ?? ''}`;
    const place = byPlace.get(key) ?? { area_id: r.area_id, day: r.day, location: r.location, unit };
    if (r.metric === 'temp_f') place.temp = readingValue(r);
    else place.rh = readingValue(r);
    byPlace.set(key, place);
  }
  return [...byPlace.values()].map((place) => {
    const computed =
      place.temp !== undefined && place.rh !== undefined
        ? airProperties(place.temp, place.rh, pressureKpa)
        : null;
    return {
      area: areaName(place.area_id),
      day: place.day,
      location: place.location,
      ...(place.unit ? { unit_id: place.unit } : {}),
      temp_f: place.temp ?? null,
      rh_pct: place.rh ?? null,
      gpp: computed ? round(computed.gpp, 1) : null,
      dew_point_f: computed?.dewPointF != null ? round(computed.dewPointF, 1) : null,
      vapor_pressure_inhg: computed ? round(computed.vaporPressureInHg, 3) : null,
    };
  });
}

/** A reading that sets a dry goal rather than one that must reach it. */
const isReference = (r: Pick<MaterialReading, 'reference' | 'location'>): boolean =>
  r.reference || r.location === 'unaffected';

/**
 * Dry goals: the latest reference of the material in the area, else the latest in an unaffected
 * place with no area (the building's), else the default. Readings come ordered by day.
 */
export class DryGoals {
  private readonly inArea = new Map<string, MaterialReading>();
  private readonly inBuilding = new Map<string, MaterialReading>();

  constructor(references: MaterialReading[]) {
    for (const r of references) {
      if (!isMaterial(r.metric) || !isReference(r)) continue;
      if (r.area_id) this.inArea.set(`${r.area_id}|${r.metric}`, r);
      else this.inBuilding.set(r.metric, r);
    }
  }

  /** The goal of a material in an area, where it comes from, and the reading that set it (with `areaName` naming its area). */
  of(
    areaId: string | null,
    metric: MaterialMetric,
    areaName: (id: string | null) => string | null = () => null,
  ): { goal: number; source: MaterialStatus['goal_source']; reference: MaterialStatus['reference'] } {
    const own = areaId ? this.inArea.get(`${areaId}|${metric}`) : undefined;
    const building = this.inBuilding.get(metric);
    const set = own ?? building;
    if (!set) return { goal: DEFAULT_DRY_GOALS[metric], source: 'default', reference: null };
    return {
      goal: readingValue(set),
      source: own ? 'area_reference' : 'unaffected_reference',
      reference: { area: areaName(set.area_id), day: set.day, point: set.point, meter: set.meter },
    };
  }
}

/** Each material reading (references excluded) against its goal. */
export function materialStatuses(
  readings: MaterialReading[],
  goals: DryGoals,
  areaName: (id: string | null) => string | null,
): MaterialStatus[] {
  const statuses: MaterialStatus[] = [];
  for (const r of readings) {
    if (!isMaterial(r.metric) || isReference(r)) continue;
    const { goal, source, reference } = goals.of(r.area_id, r.metric, areaName);
    statuses.push({
      area: areaName(r.area_id),
      day: r.day,
      metric: r.metric,
      point: r.point,
      value: readingValue(r),
      goal,
      goal_source: source,
      reference,
      dry: readingValue(r) <= goal,
    });
  }
  return statuses;
}

/** The latest status of each material point, and the first day from which all of them stayed dry. */
function areaDryness(statuses: MaterialStatus[]): {
  latest: MaterialStatus[];
  dry: boolean;
  dryDay: number | null;
} {
  const latest = new Map<string, MaterialStatus>();
  const dryByDay: { day: number; dry: boolean }[] = [];
  for (const status of statuses) {
    latest.set(`${status.metric}|${status.point ?? ''}`, status);
    const allDry = [...latest.values()].every((s) => s.dry);
    const last = dryByDay.at(-1);
    if (last?.day === status.day) last.dry = allDry;
    else dryByDay.push({ day: status.day, dry: allDry });
  }
  let dryDay: number | null = null;
  for (const { day, dry } of dryByDay) dryDay = dry ? (dryDay ?? day) : null;
  return { latest: [...latest.values()], dry: dryDay !== null, dryDay };
}

export interface LogView {
  detail: 'summary' | 'readings';
  area?: string;
  fromDay?: number;
  toDay?: number;
}

/**
 * The log as get_drying_log answers it, from its rows alone; `view` narrows it to one area or a
 * range of days. The estimate's warnings are added after (withBilledWarnings).
 */
export function toDryingLog(
  record: DryingRecord,
  view: LogView = { detail: 'summary' },
): DryingLogWithoutEquipment {
  const { log, job } = record;
  const names = new Map(record.areas.map((a) => [a.id, a.name]));
  const areaName = (id: string | null): string | null => (id ? (names.get(id) ?? null) : null);
  const elevation = elevationOf(record);
  const wantedArea = view.area?.trim().toLowerCase();
  const areas = wantedArea ? record.areas.filter((a) => a.name.toLowerCase() === wantedArea) : record.areas;
  // Status is as of `toDay`: later readings are left out of everything.
  const readings = record.readings.filter((r) => view.toDay === undefined || r.day <= view.toDay);
  const shown = (day: number | null): boolean =>
    day === null ||
    ((view.fromDay === undefined || day >= view.fromDay) && (view.toDay === undefined || day <= view.toDay));
  const inView = (areaId: string | null): boolean => !wantedArea || areas.some((a) => a.id === areaId);

  const conditions = airConditions(readings, areaName, elevation.pressureKpa);
  const goals = new DryGoals(readings);
  const statuses = materialStatuses(readings, goals, areaName);
  const depressions = grainDepressions(conditions);
  const skippedAll = new Set(record.skips.filter((s) => s.area_id === null).map((s) => s.day));
  const onSkippedDay = (r: Pick<ReadingRow, 'day' | 'area_id'>): boolean =>
    skippedAll.has(r.day) || record.skips.some((s) => s.day === r.day && s.area_id === r.area_id);

  const warnings: DryingWarning[] = depressions
    .filter((d) => d.value < 0 && shown(d.day) && (!wantedArea || d.area.toLowerCase() === wantedArea))
    .map((d) => ({
      code: 'negative_grain_depression',
      area: d.area,
      day: d.day,
      message: `${d.area}, day ${d.day}: the dehumidifier's exhaust holds ${-d.value} GPP more than the room's air; it is adding moisture.`,
    }));

  const [conditionsIn, statusesIn, depressionsIn] = [
    byArea(conditions),
    byArea(statuses),
    byArea(depressions),
  ];
  const latestDayIn = new Map(readings.map((r) => [r.area_id, r.day]));
  const areaViews = areas.map((area) => {
    const dryness = areaDryness(statusesIn.get(area.name) ?? []);
    const latestOf = (location: ReadingLocation) =>
      (conditionsIn.get(area.name) ?? []).filter((c) => c.location === location && c.gpp !== null).at(-1) ??
      null;
    const depression = depressionsIn.get(area.name)?.at(-1);
    const latestDay = latestDayIn.get(area.id) ?? null;
    return {
      id: area.id,
      name: area.name,
      planned_days: plannedDaysOf(area, log),
      own_planned_days: area.planned_days,
      dry: dryness.dry,
      dry_day: dryness.dryDay,
      latest_day: latestDay,
      air: latestOf('affected'),
      exhaust: latestOf('dehumidifier_exhaust'),
      grain_depression: depression?.value ?? null,
      materials: dryness.latest,
    };
  });

  const building = (location: ReadingLocation) =>
    conditions.filter((c) => c.area === null && c.location === location && c.gpp !== null).at(-1) ?? null;
  const answer: DryingLogWithoutEquipment = {
    id: log.id,
    job: { id: job.id, job_number: job.job_number },
    start_date: log.start_date,
    planned_days: log.planned_days,
    end_date: dateOfDay(log.start_date, log.planned_days),
    today_day: dayOfDate(log.start_date, log.today),
    elevation_ft: elevation.feet,
    elevation_source: elevation.source,
    pressure_inhg: round(kpaToInHg(elevation.pressureKpa), 2),
    estimate_id: log.estimate_id,
    areas: areaViews,
    building: { outside: building('outside'), unaffected: building('unaffected') },
    days: daysOf(record).filter((d) => shown(d.day)),
    wet_areas: areaViews.filter((a) => !a.dry).map((a) => a.name),
    warnings,
    notes: record.notes
      .filter((n) => shown(n.day) && (!wantedArea || n.area_id === null || inView(n.area_id)))
      .map((n) => ({
        id: n.id,
        text: n.text,
        area: areaName(n.area_id),
        day: n.day,
        created_by: { id: n.author_id, name: n.author_name },
        on_site_by: onSiteRefOf(n.on_site_by, n.on_site_by_name),
        created_at: n.created_at.toISOString(),
      })),
    reading_count: readings.filter((r) => shown(r.day) && inView(r.area_id)).length,
    unit_grain_depression: unitGrainDepressions(conditions).filter(
      (d) => shown(d.day) && (!wantedArea || d.area.toLowerCase() === wantedArea),
    ),
  };
  if (view.detail === 'readings') {
    answer.readings = readings
      .filter((r) => shown(r.day) && inView(r.area_id))
      .map((r) => toReading(r, areaName, onSkippedDay(r), goalStatus(r, goals)));
    answer.conditions = conditions.filter(
      (c) => shown(c.day) && (!wantedArea || c.area?.toLowerCase() === wantedArea),
    );
    answer.grain_depression = depressions.filter(
      (d) => shown(d.day) && (!wantedArea || d.area.toLowerCase() === wantedArea),
    );
  }
  return answer;
}

/** Items grouped by the name of their area (in their order). */
function byArea<T extends { area: string | null }>(items: T[]): Map<string | null, T[]> {
  const groups = new Map<string | null, T[]>();
  for (const item of items) {
    const group = groups.get(item.area);
    if (group) group.push(item);
    else groups.set(item.area, [item]);
  }
  return groups;
}

/** Each dehumidifier's grain depression by day: its inlet GPP (else its area's air) minus its exhaust GPP. */
function unitGrainDepressions(conditions: AirCondition[]): DryingLog['unit_grain_depression'] {
  const at = (location: ReadingLocation, key: string) =>
    conditions.find(
      (c) => c.location === location && c.gpp !== null && `${c.unit_id ?? c.area}|${c.day}` === key,
    )?.gpp ?? null;
  return conditions
    .filter(
      (c): c is AirCondition & { unit_id: string; area: string; gpp: number } =>
        c.location === 'dehumidifier_exhaust' && c.unit_id !== undefined && c.area !== null && c.gpp !== null,
    )
    .flatMap((exhaust) => {
      const inlet = at('dehumidifier_inlet', `${exhaust.unit_id}|${exhaust.day}`);
      const room = at('affected', `${exhaust.area}|${exhaust.day}`);
      const from = inlet ?? room;
      if (from === null) return [];
      return [
        {
          unit_id: exhaust.unit_id,
          area: exhaust.area,
          day: exhaust.day,
          inlet_gpp: from,
          inlet_source: inlet !== null ? ('inlet' as const) : ('area_air' as const),
          exhaust_gpp: exhaust.gpp,
          value: round(from - exhaust.gpp, 1),
        },
      ];
    })
    .sort((a, b) => a.day - b.day);
}

/** Affected GPP minus exhaust GPP, per area and day where both were read. */
function grainDepressions(conditions: AirCondition[]): GrainDepression[] {
  const affected = new Map(
    conditions
      .filter((c) => c.location === 'affected' && c.gpp !== null)
      .map((c) => [`${c.area}|${c.day}`, c.gpp!]),
  );
  const result: GrainDepression[] = [];
  for (const exhaust of conditions) {
    if (exhaust.location !== 'dehumidifier_exhaust' || exhaust.area === null || exhaust.gpp === null)
      continue;
    const room = affected.get(`${exhaust.area}|${exhaust.day}`);
    if (room !== undefined)
      result.push({ area: exhaust.area, day: exhaust.day, value: round(room - exhaust.gpp, 1) });
  }
  return result.sort((a, b) => a.day - b.day);
}

/** The log with a warning for each day-billed line billed past the day its room's area read dry. */
export function withBilledWarnings<Log extends DryingLogWithoutEquipment>(
  log: Log,
  billed: BilledLine[],
): Log {
  const pastDry = log.areas.flatMap((area) =>
    area.dry_day === null ? [] : billedPastDry(billed, area, area.dry_day),
  );
  return pastDry.length ? { ...log, warnings: [...log.warnings, ...pastDry] } : log;
}

function billedPastDry(billed: BilledLine[], area: Pick<AreaRow, 'name'>, dryDay: number): DryingWarning[] {
  return billed
    .filter(
      (line): line is BilledLine & { drying_days: number } =>
        line.room.toLowerCase() === area.name.toLowerCase() &&
        line.drying_days !== null &&
        line.drying_days > dryDay,
    )
    .map((line) => ({
      code: 'billed_past_dry',
      area: area.name,
      day: dryDay,
      message: `${area.name} read dry on day ${dryDay}, but a day-billed line of its estimate is billed for ${line.drying_days} days.`,
      estimate_id: line.estimate_id,
      line_id: line.line_id,
      billed_days: line.drying_days,
      dry_day: dryDay,
    }));
}

/** Every day of the plan (and any later day read or skipped), with what was skipped and read. */
function daysOf(record: DryingRecord): DryingLog['days'] {
  const { log, areas, readings, skips } = record;
  const last = Math.max(
    log.planned_days,
    ...areas.map((a) => plannedDaysOf(a, log)),
    ...readings.map((r) => r.day),
    ...skips.map((s) => s.day),
  );
  const perDay = new Map<number, number>();
  const readAreas = new Map<number, Set<string>>();
  for (const r of readings) {
    perDay.set(r.day, (perDay.get(r.day) ?? 0) + 1);
    if (r.area_id !== null) readAreas.set(r.day, (readAreas.get(r.day) ?? new Set()).add(r.area_id));
  }
  const days: DryingLog['days'] = [];
  for (let day = 1; day <= last; day++) {
    const skipped = skips.filter((s) => s.day === day);
    const all = skipped.some((s) => s.area_id === null);
    const skippedAreas = all ? areas : areas.filter((a) => skipped.some((s) => s.area_id === a.id));
    days.push({
      day,
      date: dateOfDay(log.start_date, day),
      read_areas: areas.filter((a) => readAreas.get(day)?.has(a.id)).map((a) => a.name),
      monitored: !(all || (areas.length > 0 && skippedAreas.length === areas.length)),
      skipped_areas: skippedAreas.map((a) => a.name),
      skip_reasons: skipped.flatMap((s) =>
        s.reason ? [{ area: areas.find((a) => a.id === s.area_id)?.name ?? null, reason: s.reason }] : [],
      ),
      readings: perDay.get(day) ?? 0,
    });
  }
  return days;
}

/** A material reading's goal, where it comes from, and whether the reading is at or below it; null for air and references. */
function goalStatus(r: ReadingRow, goals: DryGoals): Schemas['DryingReading']['goal'] {
  if (!isMaterial(r.metric) || isReference(r)) return null;
  const { goal, source } = goals.of(r.area_id, r.metric);
  return { value: goal, source, at_or_below: readingValue(r) <= goal };
}

function toReading(
  r: ReadingRow,
  areaName: (id: string | null) => string | null,
  onSkippedDay: boolean,
  goal: Schemas['DryingReading']['goal'],
): Schemas['DryingReading'] {
  return {
    id: r.id,
    area: areaName(r.area_id),
    day: r.day,
    location: r.location,
    metric: r.metric,
    value: readingValue(r),
    point: r.point,
    meter: r.meter,
    unit_id: r.equipment_id,
    reference: r.reference,
    source_of_values: r.source_of_values,
    on_skipped_day: onSkippedDay,
    goal,
    recorded_by: { id: r.recorded_by, name: r.recorded_by_name },
    on_site_by: onSiteRefOf(r.on_site_by, r.on_site_by_name),
    recorded_at: r.recorded_at.toISOString(),
  };
}
