/**
 * Drying chambers and their S500 equipment plans. A chamber groups areas of the log; its class
 * is given, or computed from the wet share of its surfaces where the rooms' sizes are known (the
 * estimate's room of each area's name). The plan sizes air movers from the wet floor and the wet
 * wall above 2 ft, and dehumidification from the volume and the class, and is compared with what
 * is on site. An area's wet wall is given as a height, a total, or the part above 2 ft
 * (`wetWallOf`); the class counts the whole of it.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { parsedJson, type LogRow } from './drying-records';
import { sum, type EquipmentRow } from './equipment';

export type DryingChamber = components['schemas']['DryingChamber'];

export interface ChamberRow {
  id: string;
  name: string;
  category: number;
  given_class: number | null;
  note: string | null;
  category_reviewed_on: string | null;
  position: number;
}

export interface ChamberAreaRow {
  id: string;
  name: string;
  chamber_id: string | null;
  wet_floor_sqft: number | null;
  wet_wall_sqft: number | null;
  wet_wall_height_x100: number | null;
  wet_wall_total_sqft: number | null;
  wet_ceiling_sqft: number | null;
  wall_offsets: number | null;
  length_x100: number | null;
  width_x100: number | null;
  height_x100: number | null;
  /** The dates of the drying notes written on the area for a day: each may explain its equipment count. */
  note_dates: string[];
}

/**
 * AHAM pints a day per cubic foot's divisor, by class 1–4 (IICRC S500 dehumidifier sizing):
 * a chamber of V cubic feet needs V / factor pints a day. Conventional units have none for class 4.
 */
export const DEHUMIDIFIER_FACTORS = { lgr: [100, 50, 40, 50], conventional: [100, 40, 30, null] } as const;
/** S500 class by wet share of the surfaces: under 5% class 1, up to 40% class 2, over 40% class 3. */
const CLASS_2_FROM_PCT = 5;
const CLASS_3_OVER_PCT = 40;
/** Air movers: one per 50–70 sq ft of wet floor, one per 100–150 sq ft of wet wall above 2 ft. */
const FLOOR_SQFT = { fewest: 70, most: 50 };
const WALL_SQFT = { fewest: 150, most: 100 };

/**
 * SQL for a log's chambers (ChamberRow[]) and areas with their room's size on the log's estimate
 * (ChamberAreaRow[]), each a JSON array: `logId` and `estimateId` are SQL (outer columns, or `?`).
 */
export function chambersJson(logId: string): string {
  return `(select coalesce(json_agg(json_build_object('id', c.id, 'name', c.name, 'category', c.category, 'given_class', c.given_class, 'note', c.note, 'position', c.position,
      'category_reviewed_on', to_char(c.category_reviewed_on, 'YYYY-MM-DD')) order by c.position), '[]')
    from drying_chambers c where c.log_id = ${logId})`;
}

export function chamberAreasJson(logId: string, estimateId: string): string {
  return `(select coalesce(json_agg(json_build_object('id', a.id, 'name', a.name, 'chamber_id', a.chamber_id, 'wet_floor_sqft', a.wet_floor_sqft, 'wet_wall_sqft', a.wet_wall_sqft,
      'wet_wall_height_x100', a.wet_wall_height_x100, 'wet_wall_total_sqft', a.wet_wall_total_sqft, 'wet_ceiling_sqft', a.wet_ceiling_sqft, 'wall_offsets', a.wall_offsets, 'length_x100', r.length_x100, 'width_x100', r.width_x100, 'height_x100', r.height_x100,
      'note_dates', (select coalesce(json_agg(distinct to_char(l.start_date + (n.day - 1), 'YYYY-MM-DD')), '[]') from drying_notes n join drying_logs l on l.id = n.log_id where n.area_id = a.id and n.day is not null)) order by a.position), '[]')
    from drying_areas a left join estimate_rooms r on r.estimate_id = ${estimateId} and lower(r.name) = lower(a.name) where a.log_id = ${logId})`;
}

export interface ChamberRows {
  chambers: ChamberRow[];
  areas: ChamberAreaRow[];
}

export async function loadChambers(db: Knex, log: Pick<LogRow, 'id' | 'estimate_id'>): Promise<ChamberRows> {
  const { rows } = (await db.raw(
    `select ${chambersJson('?')} as chambers, ${chamberAreasJson('?', '?')} as areas`,
    [log.id, log.estimate_id, log.id],
  )) as { rows: { chambers: unknown; areas: unknown }[] };
  return { chambers: parsedJson(rows[0].chambers), areas: parsedJson(rows[0].areas) };
}

export const feet = (x100: number | null): number | null => (x100 === null ? null : x100 / 100);
const round1 = (value: number): number => Math.round(value * 10) / 10;
/** The band of wall up to this height is not counted for air movers (S500: wet wall above 2 ft). */
export const WALL_BAND_FT = 2;

type RoomSize = Pick<ChamberAreaRow, 'length_x100' | 'width_x100' | 'height_x100'>;

/** An area's size in feet, when its room's length, width and height are all known. */
function sizeOf(area: ChamberAreaRow): { floor: number; walls: number; volume: number } | null {
  const [l, w, h] = [feet(area.length_x100), feet(area.width_x100), feet(area.height_x100)];
  if (!l || !w || !h) return null;
  return { floor: l * w, walls: 2 * (l + w) * h, volume: l * w * h };
}

/** The room's perimeter in feet, when its length and width are known. */
export function perimeterOf(room: RoomSize): number | null {
  const [l, w] = [feet(room.length_x100), feet(room.width_x100)];
  return l && w ? 2 * (l + w) : null;
}

export interface WetWall {
  /** All wet wall, counted in the class; null when it needs the room's size and it is unknown. */
  sqft: number | null;
  /** The wet wall more than 2 ft up, counted for air movers; null likewise. */
  above_2ft_sqft: number | null;
}

/**
 * The wet wall of an area as the service counts it. A height wets the whole perimeter to that
 * height (no higher than the room's); a total alone is taken as wetting the walls evenly all
 * around, so what is above 2 ft is what a 2 ft band leaves of it; `wet_wall_sqft` is the part
 * above 2 ft, and alone it is the only wall counted wet (its meaning before the others existed).
 */
export function wetWallOf(area: ChamberAreaRow): WetWall {
  const perimeter = perimeterOf(area);
  const height = feet(area.wet_wall_height_x100);
  if (height !== null) {
    if (perimeter === null) return { sqft: null, above_2ft_sqft: null };
    const wetTo = Math.min(height, feet(area.height_x100) ?? height);
    return { sqft: perimeter * wetTo, above_2ft_sqft: perimeter * Math.max(0, wetTo - WALL_BAND_FT) };
  }
  const total = area.wet_wall_total_sqft;
  if (total === null) return { sqft: area.wet_wall_sqft ?? 0, above_2ft_sqft: area.wet_wall_sqft ?? 0 };
  if (area.wet_wall_sqft !== null) return { sqft: total, above_2ft_sqft: area.wet_wall_sqft };
  return {
    sqft: total,
    above_2ft_sqft: perimeter === null ? null : Math.max(0, total - perimeter * WALL_BAND_FT),
  };
}

const wetOf = (area: ChamberAreaRow, wall: WetWall): number =>
  (area.wet_floor_sqft ?? 0) + (wall.sqft ?? 0) + (area.wet_ceiling_sqft ?? 0);
const hasWetFacts = (area: ChamberAreaRow): boolean =>
  area.wet_floor_sqft !== null ||
  area.wet_wall_sqft !== null ||
  area.wet_wall_height_x100 !== null ||
  area.wet_wall_total_sqft !== null ||
  area.wet_ceiling_sqft !== null;

/** Air movers an area calls for, with the given sq ft of wet floor and of wet wall per unit. */
const moversFor = (area: ChamberAreaRow, aboveTwoFt: number, per: { floor: number; wall: number }): number =>
  1 +
  Math.ceil((area.wet_floor_sqft ?? 0) / per.floor) +
  Math.ceil(aboveTwoFt / per.wall) +
  (area.wall_offsets ?? 0);

const roundedWall = (wall: WetWall): WetWall => ({
  sqft: wall.sqft === null ? null : round1(wall.sqft),
  above_2ft_sqft: wall.above_2ft_sqft === null ? null : round1(wall.above_2ft_sqft),
});

export function classOfShare(pct: number): number {
  if (pct < CLASS_2_FROM_PCT) return 1;
  return pct <= CLASS_3_OVER_PCT ? 2 : 3;
}

/**
 * Whether the chamber's equipment count has a reason: a note on the chamber, or a drying note on
 * one of its areas for a day since the count took its shape (the last unit placed in or removed
 * from its areas); a note written for an earlier day explained an earlier count.
 */
function explained(chamber: ChamberRow, mine: ChamberAreaRow[], units: EquipmentRow[]): boolean {
  if (chamber.note !== null) return true;
  const moves = units
    .filter((unit) => mine.some((area) => area.id === unit.area_id))
    .flatMap((unit) => [unit.placed_on, unit.removed_on ?? '']);
  const countSince = moves.reduce((latest, date) => (date > latest ? date : latest), '');
  return mine.some((area) => area.note_dates.some((date) => date >= countSince));
}

/** Each chamber with its class, its plan, what is on site in it and what a reviewer would question. */
export function chamberViews(
  chambers: ChamberRow[],
  areas: ChamberAreaRow[],
  units: EquipmentRow[],
): DryingChamber[] {
  return chambers.map((chamber) => {
    const mine = areas.filter((area) => area.chamber_id === chamber.id);
    const sizes = mine.map(sizeOf);
    const walls = mine.map(wetWallOf);
    const sized = sizes.every((size) => size !== null) && mine.length > 0;
    const total = sized ? sum(sizes.map((size) => 2 * size!.floor + size!.walls)) : 0;
    const share =
      sized && mine.some(hasWetFacts) && total > 0
        ? round1((100 * sum(mine.map((area, i) => wetOf(area, walls[i])))) / total)
        : null;
    const computed = share === null ? null : classOfShare(share);
    const klass = chamber.given_class ?? computed;
    const cubic = sized ? Math.round(sum(sizes.map((size) => size!.volume))) : null;

    // Not planned while a wall figure waits for its room's size: a plan without it would be short.
    const planned = mine.some(hasWetFacts) && walls.every((wall) => wall.above_2ft_sqft !== null);
    const airMovers = planned
      ? {
          min: sum(
            mine.map((a, i) =>
              moversFor(a, walls[i].above_2ft_sqft!, { floor: FLOOR_SQFT.fewest, wall: WALL_SQFT.fewest }),
            ),
          ),
          max: sum(
            mine.map((a, i) =>
              moversFor(a, walls[i].above_2ft_sqft!, { floor: FLOOR_SQFT.most, wall: WALL_SQFT.most }),
            ),
          ),
        }
      : null;
    const conventionalFactor = klass === null ? null : DEHUMIDIFIER_FACTORS.conventional[klass - 1];
    const pints =
      cubic !== null && klass !== null
        ? {
            lgr: Math.ceil(cubic / DEHUMIDIFIER_FACTORS.lgr[klass - 1]),
            conventional: conventionalFactor ? Math.ceil(cubic / conventionalFactor) : null,
          }
        : null;

    const onSite = units.filter(
      (unit) => unit.removed_on === null && mine.some((area) => area.id === unit.area_id),
    );
    const placedMovers = onSite.filter((unit) => unit.kind === 'air_mover').length;
    const refrigerant = onSite.filter(
      (unit) => unit.kind === 'dehumidifier' && unit.dehumidifier_type !== 'desiccant',
    );
    const placedPints = sum(refrigerant.map((unit) => unit.pints_per_day ?? 0));
    // Sized for the type on site: conventional only when every refrigerant unit is conventional.
    const allConventional =
      refrigerant.length > 0 && refrigerant.every((unit) => unit.dehumidifier_type === 'conventional');
    const needed =
      pints === null ? null : allConventional && pints.conventional !== null ? pints.conventional : pints.lgr;

    const moversVs =
      airMovers === null
        ? null
        : placedMovers < airMovers.min
          ? 'under'
          : placedMovers > airMovers.max
            ? 'over'
            : 'within';
    const pintsVs = needed === null ? null : placedPints >= needed ? 'within' : 'under';
    const flags: string[] = [];
    if (!explained(chamber, mine, units)) {
      if (moversVs === 'under' || moversVs === 'over')
        flags.push(
          `${chamber.name}: ${placedMovers} air mover${placedMovers === 1 ? '' : 's'} on site; the S500 plan calls for ${airMovers!.min}–${airMovers!.max}.`,
        );
      if (pintsVs === 'under')
        flags.push(
          `${chamber.name}: ${placedPints} pints a day of dehumidification on site; the S500 plan needs ${needed} (${allConventional ? 'conventional' : 'LGR'}, class ${klass}).`,
        );
    }
    return {
      id: chamber.id,
      name: chamber.name,
      category: chamber.category,
      category_reviewed_on: chamber.category_reviewed_on,
      class: klass,
      class_source: chamber.given_class !== null ? 'given' : computed !== null ? 'computed' : null,
      wet_share_pct: share,
      cubic_ft: cubic,
      note: chamber.note,
      areas: mine.map((area, i) => ({
        name: area.name,
        wet_floor_sqft: area.wet_floor_sqft,
        wet_wall_sqft: area.wet_wall_sqft,
        wet_wall_height_ft: feet(area.wet_wall_height_x100),
        wet_wall_total_sqft: area.wet_wall_total_sqft,
        wet_ceiling_sqft: area.wet_ceiling_sqft,
        wall_offsets: area.wall_offsets,
        size_known: sizes[i] !== null,
        wet_wall_counted: roundedWall(walls[i]),
      })),
      plan: { air_movers: airMovers, dehumidifier_pints: pints },
      placed: { air_movers: placedMovers, dehumidifier_pints: placedPints },
      air_movers_vs_plan: moversVs,
      dehumidification_vs_plan: pintsVs,
      flags,
    };
  });
}
