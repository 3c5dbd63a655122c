import { lockedJob, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { jobRefOf } from '../../domain/jobs/job-records';
import { findLog, noLog, requireArea } from '../../domain/drying/drying-records';
import {
  checkChamberNames,
  refuseContradictoryWalls,
  refuseLaterReviews,
} from '../../domain/drying/chamber-rules';
import { chamberViews, loadChambers, type ChamberRow } from '../../domain/drying/chambers';
import { loadEquipment } from '../../domain/drying/equipment';
import { toHundredths } from '../../platform/money';

const WET_FIELDS = [
  'wet_floor_sqft',
  'wet_wall_sqft',
  'wet_wall_total_sqft',
  'wet_ceiling_sqft',
  'wall_offsets',
] as const;

export const set_drying_chambers: WriteHandler<'set_drying_chambers'> = async (ctx, { body }) => {
  const { db } = ctx;
  const job = lockedJob(ctx);
  const log = await findLog(db, ctx.caller, job.id);
  if (!log) throw noLog(job);
  checkChamberNames(body.chambers);
  refuseLaterReviews(body.chambers, log.today);
  const wanted = body.chambers.map((chamber) => ({
    ...chamber,
    name: chamber.name.trim(),
    areas: chamber.areas.map((area) => ({ ...area, row: requireArea(log.areas, area.name) })),
  }));

  const before = await loadChambers(db, log);
  // Every area named is on the log (above): its room's size is what the wall figures must fit.
  const rooms = new Map(before.areas.map((area) => [area.name.toLowerCase(), area]));
  refuseContradictoryWalls(body.chambers, (name) => rooms.get(name.trim().toLowerCase())!);
  const kept = new Map<string, ChamberRow>(
    before.chambers.map((chamber) => [chamber.name.toLowerCase(), chamber]),
  );
  const chamberIds: string[] = [];
  for (const [position, chamber] of wanted.entries()) {
    const fields = {
      name: chamber.name,
      category: chamber.category,
      given_class: chamber.class ?? null,
      note: chamber.note?.trim() || null,
      category_reviewed_on: chamber.category_reviewed_on ?? null,
      position: position + 1,
    };
    const existing = kept.get(chamber.name.toLowerCase());
    if (!existing)
      chamberIds.push(
        (
          await ctx.rows.insert<{ id: string }>('drying_chambers', {
            id: newId('chb'),
            log_id: log.id,
            ...fields,
          })
        ).id,
      );
    else {
      if (Object.entries(fields).some(([key, value]) => existing[key as keyof ChamberRow] !== value))
        await ctx.rows.update('drying_chambers', existing.id, fields);
      chamberIds.push(existing.id);
    }
  }
  // Every area gets its chamber and wet surfaces as asked; an area named by none leaves its chamber.
  for (const area of before.areas) {
    const index = wanted.findIndex((chamber) => chamber.areas.some((a) => a.row.id === area.id));
    const given = index < 0 ? undefined : wanted[index].areas.find((a) => a.row.id === area.id);
    const patch = {
      chamber_id: index < 0 ? null : chamberIds[index],
      ...Object.fromEntries(WET_FIELDS.map((field) => [field, given?.[field] ?? null])),
      wet_wall_height_x100:
        given?.wet_wall_height_ft === undefined ? null : toHundredths(given.wet_wall_height_ft),
    };
    if (Object.entries(patch).some(([key, value]) => area[key as keyof typeof area] !== value))
      await ctx.rows.update('drying_areas', area.id, patch);
  }
  for (const chamber of before.chambers)
    if (!chamberIds.includes(chamber.id)) await ctx.rows.remove('drying_chambers', chamber.id);

  const after = await loadChambers(db, log);
  const chambers = chamberViews(after.chambers, after.areas, await loadEquipment(db, log.id));
  if (ctx.rows.changes.length > 0) {
    ctx.changes.add(
      {
        kind: 'schedule',
        data: {
          action: 'drying.chambers_set',
          log_id: log.id,
          chambers: chambers.map((c) => ({
            name: c.name,
            category: c.category,
            class: c.class,
            areas: c.areas.map((a) => a.name),
          })),
        },
        summary: `Drying chambers of #${job.job_number}: ${chambers.length ? chambers.map((c) => `${c.name} (category ${c.category}${c.class ? `, class ${c.class}` : ''})`).join(', ') : 'none'}`,
        job: jobRefOf(job),
        recordId: log.id,
      },
      { undo: true },
    );
  }
  return { log_id: log.id, chambers };
};
