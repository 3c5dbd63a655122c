/**
 * The rules of a set_drying_chambers request, checked before anything is read or saved: chamber
 * names differ without regard to case, an area is in one chamber at most, and a category is not
 * reviewed after today. Pure functions.
 */
import { invalidRequest, type FieldError } from '../../platform/errors';
import type { JsonBodyOf } from '../../platform/handler';
import { dateInFuture } from './days';

export type ChamberInput = JsonBodyOf<'set_drying_chambers'>['chambers'][number];

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
