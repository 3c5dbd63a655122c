import type { components } from '../../../sdk/src/schema';
import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import { findLog, noLog, requireArea } from '../../domain/drying/drying-records';
import { checkStartDate } from '../../domain/drying/days';
import { followPlan } from '../../domain/drying/estimate-follow';
import { readLog } from '../../domain/drying/read-log';

type FieldValues = components['schemas']['ChangeFieldValues'];

export const update_drying_settings: WriteHandler<'update_drying_settings'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const log = await findLog(db, caller, job.id);
  if (!log) throw noLog(job);
  checkStartDate(body.start_date, log.today);
  const { areas } = log;
  const area = body.area !== undefined ? requireArea(areas, body.area) : null;

  const fields: FieldValues[] = [];
  const logPatch: Record<string, unknown> = {};
  const change = (
    field: string,
    before: string | number | null,
    after: string | number | null | undefined,
  ) => {
    if (after === undefined || after === before) return false;
    fields.push({ field, before, after });
    return true;
  };
  if (change('start_date', log.start_date, body.start_date)) logPatch.start_date = body.start_date;
  if (change('elevation_ft', log.elevation_ft, body.elevation_ft)) logPatch.elevation_ft = body.elevation_ft;
  if (!area && change('planned_days', log.planned_days, body.planned_days))
    logPatch.planned_days = body.planned_days;
  const areaChanged = area !== null && change('area_planned_days', area.planned_days, body.planned_days);
  if (fields.length === 0)
    return { log: await readLog(db, job, log), estimate: null, credits: { used: 0, remaining: log.credits } };

  if (Object.keys(logPatch).length) await ctx.rows.update('drying_logs', log.id, logPatch);
  if (areaChanged)
    Object.assign(area, await ctx.rows.update('drying_areas', area.id, { planned_days: body.planned_days }));
  const updated = (await findLog(db, caller, job.id))!;
  const estimate = 'planned_days' in logPatch || areaChanged ? await followPlan(ctx, updated, areas) : null;

  ctx.changes.add(
    {
      kind: 'schedule',
      data: {
        action: 'drying.settings_changed',
        log_id: log.id,
        area: area?.name ?? null,
        fields,
        estimate: estimate && {
          estimate_id: estimate.estimate_id,
          outcome: estimate.outcome,
          changed_lines: estimate.changed_lines.map((line) => line.line_id),
          total_before: estimate.total_before,
          total_after: estimate.total_after,
        },
      },
      summary: `Drying settings of #${job.job_number}${area ? ` (${area.name})` : ''}: ${fields.map((f) => `${f.field} ${f.before ?? 'none'} → ${f.after ?? 'none'}`).join(', ')}`,
      job: jobRefOf(job),
      recordId: log.id,
    },
    { undo: true },
  );
  return { log: await readLog(db, job, updated), estimate, credits: { used: 0, remaining: log.credits } };
};
