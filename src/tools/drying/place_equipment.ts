import { invalidRequest, type FieldError } from '../../platform/errors';
import { lockedJob, type BodyOf, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { jobRefOf } from '../../domain/jobs/job-records';
import { dateOfDay, findLog, noLog, requireArea } from '../../domain/drying/drying-records';
import { dayOrToday } from '../../domain/drying/days';
import { equipmentOnSite, loadEquipment, toUnit } from '../../domain/drying/equipment';
import { doneBy, onSiteTeammate } from '../../domain/people/on-site';

type UnitInput = BodyOf<'place_equipment'>['units'][number];

/** At most this many units in one request, counts included. */
const MAX_UNITS = 50;

/** Dehumidifier details only on dehumidifiers; an asset tag names one unit. */
function check(units: UnitInput[]): void {
  const errors: FieldError[] = [];
  units.forEach((unit, i) => {
    const at = `/body/units/${i}`;
    if (unit.kind !== 'dehumidifier' && unit.dehumidifier_type !== undefined)
      errors.push({
        path: `${at}/dehumidifier_type`,
        message: `is for dehumidifiers; this unit is a ${unit.kind}`,
      });
    if (unit.kind !== 'dehumidifier' && unit.pints_per_day !== undefined)
      errors.push({
        path: `${at}/pints_per_day`,
        message: `is for dehumidifiers; this unit is a ${unit.kind}`,
      });
    if (unit.asset_tag !== undefined && (unit.count ?? 1) > 1)
      errors.push({ path: `${at}/count`, message: 'must be 1 with an asset_tag, which names one unit' });
  });
  const total = units.reduce((sum, unit) => sum + (unit.count ?? 1), 0);
  if (total > MAX_UNITS)
    errors.push({
      path: '/body/units',
      message: `places ${total} units; at most ${MAX_UNITS} in one request`,
    });
  if (errors.length) throw invalidRequest(errors);
}

export const place_equipment: WriteHandler<'place_equipment'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const log = await findLog(db, caller, job.id);
  if (!log) throw noLog(job);
  const area = requireArea(log.areas, body.area);
  check(body.units);
  const day = dayOrToday(body, log.start_date, log.today);
  const date = dateOfDay(log.start_date, day);
  const onSite = await onSiteTeammate(db, caller, body.by);

  const before = await loadEquipment(db, log.id);
  const rows = body.units
    .flatMap((unit) =>
      Array.from({ length: unit.count ?? 1 }, () => ({
        id: newId('eqp'),
        log_id: log.id,
        area_id: area.id,
        kind: unit.kind,
        dehumidifier_type: unit.dehumidifier_type ?? null,
        pints_per_day: unit.pints_per_day ?? null,
        asset_tag: unit.asset_tag?.trim() ?? null,
        placed_on: date,
        placed_by: caller.personId,
        placed_on_site_by: onSite?.id ?? null,
      })),
    )
    .map((row, i) => ({ ...row, position: before.length + i + 1 }));
  await ctx.rows.insertMany('drying_equipment', rows);
  const placed = rows.map((row) => ({
    ...row,
    area: area.name,
    removed_on: null,
    placed_by_name: caller.personName,
    placed_on_site_by_name: onSite?.name ?? null,
    removed_on_site_by: null,
    removed_on_site_by_name: null,
  }));

  ctx.changes.add(
    {
      kind: 'visits',
      data: {
        action: 'drying.equipment_placed',
        log_id: log.id,
        area: area.name,
        date,
        units: placed.map((unit) => ({ id: unit.id, kind: unit.kind, asset_tag: unit.asset_tag })),
        on_site_by: onSite,
      },
      summary: `${placed.length} drying unit${placed.length === 1 ? '' : 's'} placed in ${area.name} on #${job.job_number} (${date}) ${doneBy(caller, onSite)}`,
      job: jobRefOf(job),
      recordId: log.id,
    },
    { undo: true },
  );
  return {
    log_id: log.id,
    area: area.name,
    date,
    day,
    placed: placed.map((unit) => toUnit(unit, log.today)),
    equipment: equipmentOnSite(
      [...before, ...placed],
      log.areas.map((a) => a.name),
      log.today,
    ),
  };
};
