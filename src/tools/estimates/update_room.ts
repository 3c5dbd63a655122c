import type { WriteHandler } from '../tool';
import { invalidRequest, notFound } from '../../platform/errors';
import {
  loadEstimate,
  requireDraft,
  toEstimate,
  type RoomRow,
} from '../../domain/estimates/estimate-records';
import { recordEstimateChange } from '../../domain/estimates/estimate-changes';
import { roomColumns } from '../../domain/estimates/rooms';

export const update_room: WriteHandler<'update_room'> = async (ctx, { path, body }) => {
  const record = await loadEstimate(ctx.db, ctx.caller, path.estimate_id);
  requireDraft(record);
  const room = record.rooms.find((r) => r.id === path.room_id);
  if (!room) throw notFound('room on this estimate');
  const { operation_id: _operationId, ...changes } = body;
  // Only what really changes is written; a request that changes nothing answers the estimate as it is.
  const columns = Object.fromEntries(
    Object.entries(roomColumns(changes)).filter(([column, value]) => room[column as keyof RoomRow] !== value),
  ) as Partial<RoomRow>;
  if (Object.keys(columns).length === 0) return toEstimate(record);
  const clash =
    columns.name &&
    record.rooms.find((r) => r.id !== room.id && r.name.toLowerCase() === columns.name!.toLowerCase());
  if (clash)
    throw invalidRequest([
      { path: '/body/name', message: `the estimate already has a room named ${clash.name}` },
    ]);

  Object.assign(room, await ctx.rows.update('estimate_rooms', room.id, columns));
  await recordEstimateChange(
    ctx,
    record,
    'estimate.room_updated',
    `room ${room.name} changed (${Object.keys(columns)
      .map((c) => c.replace(/_x100$/, ''))
      .join(', ')})`,
  );
  return toEstimate(record);
};
