import type { ReadHandler } from '../tool';
import { loadEstimate, toEstimate } from '../../domain/estimates/estimate-records';

export const get_estimate: ReadHandler<'get_estimate'> = async ({ db, caller }, { path, query }) =>
  toEstimate(await loadEstimate(db, caller, path.estimate_id), { view: query.view, room: query.room });
