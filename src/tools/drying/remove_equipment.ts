import { ApiError, invalidRequest, type FieldError } from '../../platform/errors';
import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import { dateOfDay, findLog, noLog } from '../../domain/drying/drying-records';
import { dayOrToday } from '../../domain/drying/days';
import { equipmentOnSite, loadEquipment, toUnit } from '../../domain/drying/equipment';
import { doneBy, onSiteTeammate } from '../../domain/people/on-site';

export const remove_equipment: WriteHandler<'remove_equipment'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const log = await findLog(db, caller, job.id);
  if (!log) throw noLog(job);
  const date = dateOfDay(log.start_date, dayOrToday(body, log.start_date, log.today));
  const onSite = await onSiteTeammate(db, caller, body.by);

  const units = await loadEquipment(db, log.id);
  const chosen = body.equipment_ids.map((id) => units.find((unit) => unit.id === id));
  const missing = body.equipment_ids.filter((_id, i) => chosen[i] === undefined);
  if (missing.length)
    throw new ApiError(
      404,
      'not_found',
      `No drying equipment ${missing.join(', ')} on job #${job.job_number}'s log.`,
    );
  const found = chosen.filter((unit) => unit !== undefined);
  const gone = found.filter((unit) => unit.removed_on !== null);
  if (gone.length)
    throw new ApiError(
      409,
      'invalid_state',
      `Already removed: ${gone.map((unit) => `${unit.id} (on ${unit.removed_on})`).join(', ')}.`,
    );
  const early: FieldError[] = found.flatMap((unit, i) =>
    unit.placed_on > date
      ? [{ path: `/body/equipment_ids/${i}`, message: `was placed on ${unit.placed_on}, after ${date}` }]
      : [],
  );
  if (early.length) throw invalidRequest(early);

  for (const unit of found) {
    await ctx.rows.update('drying_equipment', unit.id, {
      removed_on: date,
      removed_on_site_by: onSite?.id ?? null,
    });
    Object.assign(unit, {
      removed_on: date,
      removed_on_site_by: onSite?.id ?? null,
      removed_on_site_by_name: onSite?.name ?? null,
    });
  }
  ctx.changes.add(
    {
      kind: 'visits',
      data: {
        action: 'drying.equipment_removed',
        log_id: log.id,
        date,
        units: found.map((unit) => ({
          id: unit.id,
          kind: unit.kind,
          area: unit.area,
          asset_tag: unit.asset_tag,
        })),
        on_site_by: onSite,
      },
      summary: `${found.length} drying unit${found.length === 1 ? '' : 's'} removed on #${job.job_number} (${date}) ${doneBy(caller, onSite)}`,
      job: jobRefOf(job),
      recordId: log.id,
    },
    { undo: true },
  );
  return {
    log_id: log.id,
    date,
    removed: found.map((unit) => toUnit(unit, log.today)),
    equipment: equipmentOnSite(
      units,
      log.areas.map((a) => a.name),
      log.today,
    ),
  };
};
