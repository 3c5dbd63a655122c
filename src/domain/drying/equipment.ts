/**
 * Drying equipment on a job's log: units placed in an area on a date and removed on a date. A
 * unit counts one equipment-day for each calendar day it is on site: the day it was placed, not
 * the day it was removed (a unit removed the day it was placed counts one); while on site, today
 * counts.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { dayOfDate, parsedJson } from './drying-records';
import { onSiteRefOf } from '../people/on-site';

export type EquipmentUnit = components['schemas']['EquipmentUnit'];
export type EquipmentOnSite = components['schemas']['DryingEquipment'];

export interface EquipmentRow {
  id: string;
  area_id: string;
  area: string;
  kind: EquipmentUnit['kind'];
  dehumidifier_type: EquipmentUnit['dehumidifier_type'];
  pints_per_day: number | null;
  asset_tag: string | null;
  placed_on: string;
  removed_on: string | null;
  /** The key's person who entered the unit. */
  placed_by: string;
  placed_by_name: string;
  placed_on_site_by: string | null;
  placed_on_site_by_name: string | null;
  removed_on_site_by: string | null;
  removed_on_site_by_name: string | null;
}

/**
 * SQL for a log's units as a JSON array of EquipmentRow, in the order they were placed, with
 * their area's name: `logId` is the SQL of the log's id (a column of an outer query, or `?`).
 */
export function equipmentJson(logId: string): string {
  return `(select coalesce(json_agg(json_build_object('id', e.id, 'area_id', e.area_id, 'area', a.name, 'kind', e.kind, 'dehumidifier_type', e.dehumidifier_type,
      'pints_per_day', e.pints_per_day, 'asset_tag', e.asset_tag, 'placed_on', to_char(e.placed_on, 'YYYY-MM-DD'), 'removed_on', to_char(e.removed_on, 'YYYY-MM-DD'),
      'placed_by', e.placed_by, 'placed_by_name', eb.name, 'placed_on_site_by', e.placed_on_site_by, 'placed_on_site_by_name', pb.name, 'removed_on_site_by', e.removed_on_site_by, 'removed_on_site_by_name', rb.name) order by e.position), '[]')
    from drying_equipment e join drying_areas a on a.id = e.area_id join people eb on eb.id = e.placed_by left join people pb on pb.id = e.placed_on_site_by left join people rb on rb.id = e.removed_on_site_by
    where e.log_id = ${logId})`;
}

export async function loadEquipment(db: Knex, logId: string): Promise<EquipmentRow[]> {
  const { rows } = (await db.raw(`select ${equipmentJson('?')} as units`, [logId])) as {
    rows: { units: unknown }[];
  };
  return parsedJson<EquipmentRow[]>(rows[0].units);
}

/** Equipment-days of a unit as of `today` (the company's date). */
export function daysOnSite(unit: Pick<EquipmentRow, 'placed_on' | 'removed_on'>, today: string): number {
  if (unit.removed_on !== null) return Math.max(1, dayOfDate(unit.placed_on, unit.removed_on) - 1);
  return Math.max(0, dayOfDate(unit.placed_on, today));
}

export function toUnit(row: EquipmentRow, today: string): EquipmentUnit {
  return {
    id: row.id,
    kind: row.kind,
    dehumidifier_type: row.dehumidifier_type,
    pints_per_day: row.pints_per_day,
    asset_tag: row.asset_tag,
    area: row.area,
    placed_on: row.placed_on,
    removed_on: row.removed_on,
    days_on_site: daysOnSite(row, today),
    entered_by: { id: row.placed_by, name: row.placed_by_name },
    placed_on_site_by: onSiteRefOf(row.placed_on_site_by, row.placed_on_site_by_name),
    removed_on_site_by: onSiteRefOf(row.removed_on_site_by, row.removed_on_site_by_name),
  };
}

/** What is on site and the equipment-days, in all and per area (areas in the log's order). */
export function equipmentOnSite(rows: EquipmentRow[], areaNames: string[], today: string): EquipmentOnSite {
  const units = rows.map((row) => toUnit(row, today));
  const byArea = areaNames
    .map((area) => {
      const here = units.filter((unit) => unit.area === area);
      return {
        area,
        on_site: here.filter((unit) => unit.removed_on === null).length,
        equipment_days: sum(here.map((unit) => unit.days_on_site)),
      };
    })
    .filter((area) => area.equipment_days > 0 || area.on_site > 0);
  return {
    units,
    on_site: units.filter((unit) => unit.removed_on === null).length,
    equipment_days: sum(units.map((unit) => unit.days_on_site)),
    by_area: byArea,
  };
}

export const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
