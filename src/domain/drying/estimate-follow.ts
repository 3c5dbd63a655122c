/**
 * The estimate tied to a drying log follows its plan: each area is a room of the same name (any
 * case) whose drying days are the area's planned days, and the estimate's own drying days are the
 * job's. Day-billed lines (units per day × drying days) re-price with them. A final estimate is
 * left alone.
 */
import type { components } from '../../../sdk/src/schema';
import type { WriteCallContext } from '../../platform/handler';
import {
  loadEstimate,
  quantityX100,
  totalsOf,
  lineTotalCents,
  type EstimateRecord,
} from '../estimates/estimate-records';
import { upsertRooms } from '../estimates/rooms';
import { fromHundredths } from '../../platform/money';
import { CURRENCY } from '../price-list/catalog';
import { plannedDaysOf, type AreaRow, type LogRow } from './drying-records';

export type EstimateFollowed = components['schemas']['EstimateFollowed'];

interface LineSnapshot {
  days: number;
  quantityX100: number;
  totalCents: number;
}

function snapshot(record: EstimateRecord): Map<string, LineSnapshot> {
  return new Map(
    record.lines.map((line) => {
      const room = record.rooms.find((r) => r.id === line.room_id);
      const days = room ? room.drying_days : (record.estimate.drying_days ?? 0);
      return [
        line.id,
        {
          days,
          quantityX100: quantityX100(line, record.rooms, record.estimate),
          totalCents: lineTotalCents(line, record.rooms, record.estimate),
        },
      ];
    }),
  );
}

/** Brings the tied estimate in line with the log's plan; null when the log has no estimate. */
export async function followPlan(
  ctx: WriteCallContext,
  log: Pick<LogRow, 'estimate_id' | 'planned_days'>,
  areas: AreaRow[],
  created = false,
): Promise<EstimateFollowed | null> {
  if (!log.estimate_id) return null;
  const record = await loadEstimate(ctx.db, ctx.caller, log.estimate_id);
  const before = snapshot(record);
  const totalBefore = totalsOf(record).total_cents;
  const money = (cents: number) => ({ cents, currency: CURRENCY });
  if (record.estimate.status === 'final') {
    return {
      estimate_id: record.estimate.id,
      outcome: 'final_left_alone',
      rooms_added: [],
      changed_lines: [],
      total_before: money(totalBefore),
      total_after: money(totalBefore),
    };
  }

  const missing = areas.filter(
    (area) => !record.rooms.some((room) => room.name.toLowerCase() === area.name.toLowerCase()),
  );
  await upsertRooms(
    ctx,
    record,
    missing.map((area) => ({ name: area.name, drying_days: plannedDaysOf(area, log) })),
  );
  let changed = missing.length > 0;
  for (const area of areas) {
    const room = record.rooms.find((r) => r.name.toLowerCase() === area.name.toLowerCase())!;
    const days = plannedDaysOf(area, log);
    if (room.drying_days === days) continue;
    Object.assign(room, await ctx.rows.update('estimate_rooms', room.id, { drying_days: days }));
    changed = true;
  }
  // The estimate row changes too (its drying days, or only its version), so that undo sees it changed.
  if (changed || record.estimate.drying_days !== log.planned_days) {
    Object.assign(
      record.estimate,
      await ctx.rows.update('estimates', record.estimate.id, { drying_days: log.planned_days }),
    );
    changed = true;
  }

  const after = snapshot(record);
  const changedLines = record.lines.flatMap((line) => {
    const [was, now] = [before.get(line.id)!, after.get(line.id)!];
    if (was.quantityX100 === now.quantityX100) return [];
    const room = record.rooms.find((r) => r.id === line.room_id);
    return [
      {
        line_id: line.id,
        description: line.description,
        room: room?.name ?? null,
        days_before: was.days,
        days_after: now.days,
        quantity_before: fromHundredths(was.quantityX100),
        quantity_after: fromHundredths(now.quantityX100),
        total_cents_before: was.totalCents,
        total_cents_after: now.totalCents,
      },
    ];
  });
  return {
    estimate_id: record.estimate.id,
    outcome: created ? 'created' : changed ? 'updated' : 'unchanged',
    rooms_added: missing.map((area) => area.name),
    changed_lines: changedLines,
    total_before: money(totalBefore),
    total_after: money(totalsOf(record).total_cents),
  };
}
