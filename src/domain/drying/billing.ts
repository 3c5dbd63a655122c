/**
 * The estimate's day-billed equipment against the equipment-days on site, per area and kind, both
 * ways: days placed but not billed (revenue lost) and days billed but not placed. A catalog line
 * bills a kind by its code; a unit still on site is counted through its area's plan, so that a
 * job under way is not flagged for the days still to come.
 */
import type { components } from '../../../sdk/src/schema';
import { fromHundredths } from '../../platform/money';
import {
  dateOfDay,
  dayOfDate,
  plannedDaysOf,
  type AreaRow,
  type BilledLine,
  type LogRow,
} from './drying-records';
import { daysOnSite, sum, type EquipmentRow } from './equipment';

export type EquipmentBilling = components['schemas']['EquipmentBilling'];
type DryingWarning = components['schemas']['DryingWarning'];
type Kind = EquipmentRow['kind'];

/** The catalog's day-billed equipment, by code prefix (see the price list's DRY- lines). */
const KIND_OF_CODE: [prefix: string, kind: Kind][] = [
  ['DRY-AM-', 'air_mover'],
  ['DRY-DH-', 'dehumidifier'],
  ['DRY-AS-', 'air_scrubber'],
  ['DRY-NAM', 'air_scrubber'],
  ['DRY-HEAT-', 'heater'],
];

export function kindBilledBy(code: string | null): Kind | null {
  return KIND_OF_CODE.find(([prefix]) => code?.startsWith(prefix))?.[1] ?? null;
}

/** A unit's days through the later of today and its area's last planned day, while on site. */
function projectedDays(unit: EquipmentRow, until: string): number {
  return unit.removed_on !== null ? daysOnSite(unit, until) : Math.max(0, dayOfDate(unit.placed_on, until));
}

/** Per area (in the log's order) and kind: what was placed and what the log's estimate bills. */
export function billingOf(
  log: Pick<LogRow, 'start_date' | 'planned_days' | 'estimate_id' | 'today'>,
  areas: AreaRow[],
  units: EquipmentRow[],
  billed: BilledLine[],
): EquipmentBilling[] {
  const lines = billed.filter(
    (line) => line.estimate_id === log.estimate_id && kindBilledBy(line.code) !== null,
  );
  return areas.flatMap((area) => {
    const planEnd = dateOfDay(log.start_date, plannedDaysOf(area, log));
    const until = planEnd > log.today ? planEnd : log.today;
    const here = units.filter((unit) => unit.area_id === area.id && unit.kind !== 'other');
    const billing = lines.filter((line) => line.room.toLowerCase() === area.name.toLowerCase());
    const kinds = [
      ...new Set([...here.map((unit) => unit.kind), ...billing.map((line) => kindBilledBy(line.code)!)]),
    ];
    return kinds.map((kind) => {
      const mine = here.filter((unit) => unit.kind === kind);
      const charged = billing.filter((line) => kindBilledBy(line.code) === kind);
      const projected = sum(mine.map((unit) => projectedDays(unit, until)));
      const billedX100 = sum(charged.map((line) => line.unit_days_x100));
      const status =
        charged.length === 0
          ? 'not_billed'
          : billedX100 > projected * 100
            ? 'over_billed'
            : billedX100 < projected * 100
              ? 'under_billed'
              : 'matches';
      return {
        area: area.name,
        kind,
        equipment_days: sum(mine.map((unit) => daysOnSite(unit, log.today))),
        projected_days: projected,
        billed_unit_days: fromHundredths(billedX100),
        status,
        line_ids: charged.map((line) => line.line_id),
      };
    });
  });
}

const KIND_NAMES: Record<Kind, string> = {
  air_mover: 'air mover',
  dehumidifier: 'dehumidifier',
  air_scrubber: 'air scrubber',
  heater: 'heater',
  other: 'other unit',
};

/** A warning for each area and kind whose billing differs from what was placed. */
export function billingWarnings(billing: EquipmentBilling[]): DryingWarning[] {
  return billing
    .filter((row) => row.status !== 'matches')
    .map((row) => {
      const what = `${KIND_NAMES[row.kind]}s in ${row.area}`;
      const placed = row.projected_days > row.billed_unit_days;
      const message = placed
        ? `${row.projected_days} ${KIND_NAMES[row.kind]}-days placed${row.projected_days > row.equipment_days ? ' (through the plan)' : ''} but ${row.billed_unit_days} billed: ${what} are not billed in full.`
        : `${row.billed_unit_days} ${KIND_NAMES[row.kind]}-days billed but ${row.projected_days} placed${row.projected_days > row.equipment_days ? ' (through the plan)' : ''}: ${what} are billed past what was on site.`;
      return {
        code: placed ? 'equipment_not_billed' : 'billed_not_placed',
        area: row.area,
        day: null,
        message,
        kind: row.kind,
        equipment_days: row.projected_days,
        billed_unit_days: row.billed_unit_days,
        line_ids: row.line_ids,
      };
    });
}
