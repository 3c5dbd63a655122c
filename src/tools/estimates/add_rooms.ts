import type { WriteHandler } from '../tool';
import { loadEstimate, requireDraft, toEstimate } from '../../domain/estimates/estimate-records';
import { recordEstimateChange } from '../../domain/estimates/estimate-changes';
import { upsertRooms } from '../../domain/estimates/rooms';

export const add_rooms: WriteHandler<'add_rooms'> = async (ctx, { path, body }) => {
  const record = await loadEstimate(ctx.db, ctx.caller, path.estimate_id);
  requireDraft(record);
  const names = await upsertRooms(ctx, record, body.rooms);
  await recordEstimateChange(ctx, record, 'estimate.rooms_added', `rooms ${names.join(', ')}`);
  return toEstimate(record);
};
