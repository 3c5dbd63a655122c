import { invalidRequest } from '../../platform/errors';
import type { ReadHandler } from '../tool';
import { readLogOfJob } from '../../domain/drying/read-log';

export const get_drying_log: ReadHandler<'get_drying_log'> = async (ctx, { path, query }) => {
  if (query.from_day !== undefined && query.to_day !== undefined && query.from_day > query.to_day) {
    throw invalidRequest([{ path: '/query/from_day', message: `is after to_day (${query.to_day})` }]);
  }
  return readLogOfJob(ctx.db, ctx.caller, path.job_id, {
    detail: query.detail ?? 'summary',
    area: query.area,
    fromDay: query.from_day,
    toDay: query.to_day,
  });
};
