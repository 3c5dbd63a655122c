import { ApiError } from '../../platform/errors';
import { lockedJob, type WriteHandler } from '../tool';
import { findLog, todayOf } from '../../domain/drying/drying-records';
import { checkStartDate } from '../../domain/drying/days';
import { followPlan } from '../../domain/drying/estimate-follow';
import { addMissingAreas, DEFAULT_PLANNED_DAYS, startLog } from '../../domain/drying/log-start';
import { readLog } from '../../domain/drying/read-log';

export const create_drying_log: WriteHandler<'create_drying_log'> = async (ctx, { body }) => {
  const job = lockedJob(ctx);
  if (await findLog(ctx.db, ctx.caller, job.id)) {
    throw new ApiError(
      409,
      'invalid_state',
      `Job #${job.job_number} already has a drying log; change it with update_drying_settings or add_drying_readings.`,
    );
  }
  checkStartDate(body.start_date, await todayOf(ctx.db, ctx.caller));
  const names = body.rooms.map((room) => room.name.trim());
  const { log, credits, estimateCreated } = await startLog(ctx, job, {
    startDate: body.start_date,
    plannedDays: body.planned_days ?? DEFAULT_PLANNED_DAYS,
    elevationFt: body.elevation_ft,
    areaNames: names,
    startedBy: 'create_drying_log',
  });
  const ownDays = (name: string) =>
    body.rooms.find((room) => room.name.trim().toLowerCase() === name.toLowerCase())?.planned_days ?? null;
  const areas = await addMissingAreas(ctx, log, [], names, ownDays);
  const estimate = await followPlan(ctx, log, areas, estimateCreated);
  return { log: await readLog(ctx.db, job, log), estimate, credits };
};
