/**
 * The rules of a set_drying_chambers request, checked before anything is saved: chamber names
 * differ without regard to case, an area is in one chamber at most, a category is not reviewed
 * after today, and an area's wet wall figures agree with each other and with its room's size.
 * Pure functions.
 */
import { ApiError, invalidRequest, type FieldError } from '../../platform/errors';
import type { JsonBodyOf } from '../../platform/handler';
import { feet, perimeterOf, WALL_BAND_FT, type ChamberAreaRow } from './chambers';
import { dateInFuture } from './days';

export type ChamberInput = JsonBodyOf<'set_drying_chambers'>['chambers'][number];
type AreaInput = ChamberInput['areas'][number];
/** An area's room as the estimate sizes it (hundredths of a foot; null where not given). */
export type AreaRoom = Pick<ChamberAreaRow, 'name' | 'length_x100' | 'width_x100' | 'height_x100'>;

/** A 400 naming each chamber named twice and each area put in a second chamber. */
export function checkChamberNames(chambers: ChamberInput[]): void {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const areas = new Map<string, string>();
  chambers.forEach((chamber, i) => {
    const name = chamber.name.trim().toLowerCase();
    if (names.has(name))
      errors.push({
        path: `/body/chambers/${i}/name`,
        message: `names a chamber twice: ${chamber.name.trim()}`,
      });
    names.add(name);
    chamber.areas.forEach((area, j) => {
      const key = area.name.trim().toLowerCase();
      const earlier = areas.get(key);
      if (earlier !== undefined)
        errors.push({
          path: `/body/chambers/${i}/areas/${j}/name`,
          message: `${area.name.trim()} is already in ${earlier}`,
        });
      areas.set(key, chamber.name.trim());
    });
  });
  if (errors.length) throw invalidRequest(errors);
}

/** A 422 naming each chamber whose category was reviewed after today. */
export function refuseLaterReviews(chambers: ChamberInput[], today: string): void {
  const later = chambers.flatMap((chamber, i) =>
    chamber.category_reviewed_on !== undefined && chamber.category_reviewed_on > today
      ? [
          {
            path: `/body/chambers/${i}/category_reviewed_on`,
            message: `is ${chamber.category_reviewed_on}, after today (${today})`,
          },
        ]
      : [],
  );
  if (later.length) throw dateInFuture(later, today);
}

/**
 * 422 `contradictory_values` naming each wet wall figure that contradicts another of its area or
 * the area's room: a height given with square feet, the part above 2 ft over the whole, a height
 * over the room's, a whole over the room's walls, or more below 2 ft than the room's 2 ft band.
 */
export function refuseContradictoryWalls(
  chambers: ChamberInput[],
  roomOf: (areaName: string) => AreaRoom,
): void {
  const errors = chambers.flatMap((chamber, i) =>
    chamber.areas.flatMap((area, j) =>
      wallContradictions(area, roomOf(area.name)).map(([field, message]) => ({
        path: `/body/chambers/${i}/areas/${j}/${field}`,
        message,
      })),
    ),
  );
  if (errors.length)
    throw new ApiError(
      422,
      'contradictory_values',
      `Wet wall figures that contradict each other or the room's size: give the wall as a height, or as square feet (\`errors\` names where).`,
      { errors },
    );
}

function wallContradictions(area: AreaInput, room: AreaRoom): [keyof AreaInput, string][] {
  const { wet_wall_height_ft: height, wet_wall_total_sqft: total, wet_wall_sqft: above } = area;
  const perimeter = perimeterOf(room);
  const roomHeight = feet(room.height_x100);
  const found: [keyof AreaInput, string][] = [];
  if (height !== undefined) {
    const also = (['wet_wall_sqft', 'wet_wall_total_sqft'] as const).filter((f) => area[f] !== undefined);
    if (also.length)
      found.push([
        'wet_wall_height_ft',
        `gives the wet wall as a height; ${also.join(' and ')} give${also.length === 1 ? 's' : ''} it again in square feet: send one of them`,
      ]);
    if (roomHeight !== null && height > roomHeight)
      found.push(['wet_wall_height_ft', `is ${height} ft, over ${room.name}'s height (${roomHeight} ft)`]);
  }
  if (total === undefined) return found;
  if (above !== undefined && above > total)
    found.push([
      'wet_wall_sqft',
      `is ${above} sq ft above 2 ft, more than the ${total} sq ft of wet wall in all (wet_wall_total_sqft)`,
    ]);
  if (perimeter !== null && roomHeight !== null && total > perimeter * roomHeight)
    found.push([
      'wet_wall_total_sqft',
      `is ${total} sq ft, more than ${room.name}'s walls (${round1(perimeter * roomHeight)} sq ft)`,
    ]);
  else if (perimeter !== null && above !== undefined && total - above > perimeter * WALL_BAND_FT)
    found.push([
      'wet_wall_total_sqft',
      `less wet_wall_sqft leaves ${total - above} sq ft below 2 ft, more than ${room.name}'s 2 ft band (${round1(perimeter * WALL_BAND_FT)} sq ft)`,
    ]);
  return found;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;
