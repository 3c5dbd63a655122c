import { invalidRequest } from '../../platform/errors';
import type { ReadHandler } from '../../platform/handler';
import { resolveJob } from '../jobs/job-records';
import { findLog, noLog, requireArea } from './drying-records';
import { readLog } from './read-log';

export const get_drying_log: ReadHandler<'get_drying_log'> = async (ctx, { path, query }) => {
  const job = await resolveJob(ctx.db, ctx.caller, path.job_id);
  const log = await findLog(ctx.db, ctx.caller, job.id);
  if (!log) throw noLog(job);
  if (query.from_day !== undefined && query.to_day !== undefined && query.from_day > query.to_day) {
    throw invalidRequest([{ path: '/query/from_day', message: `is after to_day (${query.to_day})` }]);
  }
  if (query.area) requireArea(log.areas, query.area);
  return readLog(ctx.db, job, log, { detail: query.detail ?? 'summary', area: query.area, fromDay: query.from_day, toDay: query.to_day });
};
