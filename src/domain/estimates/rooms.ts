import type { components } from '../../../sdk/src/schema';
import type { WriteCallContext } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { toHundredths } from '../../platform/money';
import type { EstimateRecord, RoomRow } from './estimate-records';

type RoomInput = components['schemas']['RoomInput'];
type RoomChanges = Partial<RoomInput>;

/** Room columns for the fields sent (feet as hundredths). */
export function roomColumns(input: RoomChanges): Partial<RoomRow> {
  const columns: Partial<RoomRow> = {};
  if (input.name !== undefined) columns.name = input.name.trim();
  if (input.length !== undefined) columns.length_x100 = toHundredths(input.length);
  if (input.width !== undefined) columns.width_x100 = toHundredths(input.width);
  if (input.height !== undefined) columns.height_x100 = toHundredths(input.height);
  if (input.demo_days !== undefined) columns.demo_days = input.demo_days;
  if (input.drying_days !== undefined) columns.drying_days = input.drying_days;
  return columns;
}

/** Adds each room, or updates the room of the same name (any case); keeps `record.rooms` current. */
export async function upsertRooms(
  ctx: WriteCallContext,
  record: EstimateRecord,
  inputs: RoomInput[],
): Promise<string[]> {
  const names: string[] = [];
  for (const input of inputs) {
    const existing = record.rooms.find((r) => r.name.toLowerCase() === input.name.trim().toLowerCase());
    const columns = roomColumns(input);
    if (existing) {
      const { name: _keepName, ...changes } = columns;
      Object.assign(existing, await ctx.rows.update('estimate_rooms', existing.id, changes));
    } else {
      const position = record.rooms.reduce((max, r) => Math.max(max, r.position), 0) + 1;
      record.rooms.push(
        await ctx.rows.insert<RoomRow>('estimate_rooms', {
          id: newId('room'),
          estimate_id: record.estimate.id,
          position,
          ...columns,
        }),
      );
    }
    names.push(input.name.trim());
  }
  return names;
}
