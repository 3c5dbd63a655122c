/**
 * Adding lines: each is checked on its own, so that one bad line (an unknown code, an unknown
 * room, a day-billed item with no drying days, missing or conflicting fields) comes back with
 * its reason while the others are added. Catalog prices are the service's, for the estimate's
 * region.
 */
import type { components } from '../../../sdk/src/schema';
import type { WriteCallContext } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { dollarsToCents, toHundredths } from '../../platform/money';
import { findItem, nearMatches, regionalPriceCents } from '../price-list/catalog';
import type { EstimateRecord, LineRow, RoomRow } from './estimate-records';

type LineInput = components['schemas']['LineInput'];
export type RejectedLine = components['schemas']['RejectedLine'];
type LineColumns = Omit<LineRow, 'id' | 'position'>;

class Rejection extends Error {
  constructor(
    readonly problem: RejectedLine['problem'],
    reason: string,
    readonly nearMatches?: RejectedLine['near_matches'],
  ) {
    super(reason);
  }
}

function roomOf(input: LineInput, rooms: RoomRow[]): RoomRow | null {
  if (input.room_id && input.room)
    throw new Rejection('conflicting_fields', 'Send room_id or room, not both.');
  if (input.room_id) {
    const room = rooms.find((r) => r.id === input.room_id);
    if (!room) throw new Rejection('unknown_room', `No room ${input.room_id} on this estimate.`);
    return room;
  }
  if (input.room) {
    const room = rooms.find((r) => r.name.toLowerCase() === input.room!.trim().toLowerCase());
    if (!room)
      throw new Rejection(
        'unknown_room',
        `No room named "${input.room}" on this estimate. Rooms: ${rooms.map((r) => r.name).join(', ') || '(none)'}.`,
      );
    return room;
  }
  return null;
}

function catalogLine(input: LineInput, record: EstimateRecord, room: RoomRow | null): LineColumns {
  const item = findItem(input.code!);
  if (!item)
    throw new Rejection(
      'unknown_code',
      `The price list has no item ${input.code}.`,
      nearMatches(input.code!),
    );
  if (
    input.description ||
    input.unit ||
    input.unit_price_cents !== undefined ||
    input.unit_price !== undefined
  ) {
    throw new Rejection(
      'conflicting_fields',
      'A catalog line takes code and quantity (or units_per_day); its description, unit and price come from the price list.',
    );
  }
  if ((input.quantity === undefined) === (input.units_per_day === undefined)) {
    throw new Rejection(
      input.quantity === undefined ? 'missing_fields' : 'conflicting_fields',
      'Send either quantity or units_per_day.',
    );
  }
  if (input.units_per_day !== undefined) {
    if (!item.per_day)
      throw new Rejection('conflicting_fields', `${item.code} is not billed by the day: send quantity.`);
    const days = room ? room.drying_days : record.estimate.drying_days;
    if (!days) {
      throw new Rejection(
        'no_drying_days',
        `${item.code} is billed by the day, but ${room ? `room ${room.name}` : 'the estimate'} has no drying days.`,
      );
    }
  }
  return {
    room_id: room?.id ?? null,
    code: item.code,
    description: item.description,
    unit: item.unit,
    category: item.category,
    per_day: item.per_day,
    units_per_day_x100: input.units_per_day === undefined ? null : toHundredths(input.units_per_day),
    quantity_x100: input.quantity === undefined ? null : toHundredths(input.quantity),
    unit_price_cents: regionalPriceCents(item, {
      code: record.estimate.region_code,
      factorX100: record.estimate.region_factor_x100,
    }),
    note: input.note ?? null,
  };
}

function ownLine(input: LineInput, room: RoomRow | null): LineColumns {
  const missing: string[] = (['description', 'unit', 'quantity'] as const).filter(
    (field) => input[field] === undefined,
  );
  if (input.unit_price_cents === undefined && input.unit_price === undefined)
    missing.push('unit_price_cents');
  if (missing.length > 0)
    throw new Rejection(
      'missing_fields',
      `An own line needs ${missing.join(', ')} (or a code from the price list).`,
    );
  if (input.units_per_day !== undefined)
    throw new Rejection('conflicting_fields', 'units_per_day is only for day-billed catalog items.');
  if (input.unit_price_cents !== undefined && input.unit_price !== undefined)
    throw new Rejection('conflicting_fields', 'Send unit_price_cents or unit_price, not both.');
  const price = input.unit_price_cents ?? dollarsToCents(input.unit_price!);
  if (price === null)
    throw new Rejection(
      'conflicting_fields',
      `unit_price ${JSON.stringify(input.unit_price)} is not an amount of dollars such as 12.50.`,
    );
  return {
    room_id: room?.id ?? null,
    code: null,
    description: input.description!,
    unit: input.unit!.toUpperCase(),
    category: null,
    per_day: false,
    units_per_day_x100: null,
    quantity_x100: toHundredths(input.quantity!),
    unit_price_cents: price,
    note: input.note ?? null,
  };
}

/** Adds what can be added; keeps `record.lines` current; returns the added lines and the rejected ones. */
export async function addLines(
  ctx: WriteCallContext,
  record: EstimateRecord,
  inputs: LineInput[],
): Promise<{ added: LineRow[]; rejected: RejectedLine[] }> {
  const added: LineRow[] = [];
  const rejected: RejectedLine[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      const room = roomOf(input, record.rooms);
      const columns = input.code ? catalogLine(input, record, room) : ownLine(input, room);
      const position = record.lines.reduce((max, l) => Math.max(max, l.position), 0) + 1;
      const line = await ctx.rows.insert<LineRow>('estimate_lines', {
        id: newId('line'),
        estimate_id: record.estimate.id,
        position,
        ...columns,
      });
      record.lines.push(line);
      added.push(line);
    } catch (error) {
      if (!(error instanceof Rejection)) throw error;
      rejected.push({
        index,
        problem: error.problem,
        reason: error.message,
        ...(error.nearMatches ? { near_matches: error.nearMatches } : {}),
      });
    }
    ctx.progress(index + 1, inputs.length, `${index + 1} of ${inputs.length} lines`);
  }
  return { added, rejected };
}
