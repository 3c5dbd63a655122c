import { ApiError, invalidRequest } from '../../platform/errors';
import { lockedJob, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { jobRefOf } from '../../domain/jobs/job-records';
import { dateOfDay, findLog, noLog, plannedDaysOf, requireArea } from '../../domain/drying/drying-records';
import { dayOf } from '../../domain/drying/days';

export const skip_drying_day: WriteHandler<'skip_drying_day'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const log = await findLog(db, caller, job.id);
  if (!log) throw noLog(job);
  const day = dayOf(body, log.start_date)!; // the spec requires day or date
  const { areas } = log;
  const area = body.area ? requireArea(areas, body.area) : null;
  const plan = area
    ? plannedDaysOf(area, log)
    : Math.max(log.planned_days, ...areas.map((a) => plannedDaysOf(a, log)));
  if (day > plan)
    throw invalidRequest([
      {
        path: body.date ? '/body/date' : '/body/day',
        message: `is day ${day}, past the plan (${plan} days); extend it with update_drying_settings first`,
      },
    ]);

  const skips = await db('drying_skips').where({ log_id: log.id, day }).select('id', 'area_id', 'reason');
  const date = dateOfDay(log.start_date, day);
  // The same skip sent again with the reason it lacked gives it that reason.
  const same = skips.find((s) => s.area_id === (area?.id ?? null));
  if (same && same.reason === null && body.reason)
    await ctx.rows.update('drying_skips', same.id, { reason: body.reason });
  else if (skips.some((s) => s.area_id === null || s.area_id === area?.id)) {
    throw new ApiError(
      409,
      'invalid_state',
      `Day ${day} (${date}) is already not monitored${area ? ` in ${area.name}` : ''}.`,
    );
  } else
    await ctx.rows.insert('drying_skips', {
      id: newId('skip'),
      log_id: log.id,
      area_id: area?.id ?? null,
      day,
      reason: body.reason ?? null,
      created_by: caller.personId,
    });
  const taken = db('drying_readings').where({ log_id: log.id, day });
  if (area) taken.where({ area_id: area.id });
  const [{ count }] = await taken.count<{ count: number }[]>('id as count');
  const readingsKept = Number(count);

  ctx.changes.add(
    {
      kind: 'schedule',
      data: {
        action: 'drying.day_skipped',
        log_id: log.id,
        day,
        date,
        area: area?.name ?? null,
        readings_kept: readingsKept,
      },
      summary: `Drying day ${day} (${date}) on #${job.job_number} not monitored${area ? ` in ${area.name}` : ''}`,
      job: jobRefOf(job),
      recordId: log.id,
    },
    { undo: true },
  );
  return { log_id: log.id, day, date, area: area?.name ?? null, readings_kept: readingsKept };
};
