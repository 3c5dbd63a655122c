import { invalidRequest, notFound } from '../../platform/errors';
import type { ReadHandler } from '../tool';
import { noLog, requireArea } from '../../domain/drying/drying-records';
import { findLogToRead, readLog } from '../../domain/drying/read-log';

export const get_drying_log: ReadHandler<'get_drying_log'> = async (ctx, { path, query }) => {
  if (query.from_day !== undefined && query.to_day !== undefined && query.from_day > query.to_day) {
    throw invalidRequest([{ path: '/query/from_day', message: `is after to_day (${query.to_day})` }]);
  }
  const found = await findLogToRead(ctx.db, ctx.caller, path.job_id);
  if (!found) throw notFound('job');
  const { job, log } = found;
  if (!log) throw noLog(job);
  if (query.area) requireArea(log.areas, query.area);
  const view = {
    detail: query.detail ?? 'summary',
    area: query.area,
    fromDay: query.from_day,
    toDay: query.to_day,
  };
  return readLog(ctx.db, job, log, view, { parts: found, fromCache: true });
};
