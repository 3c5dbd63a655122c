/**
 * src/domain/estimates/estimate-records.ts: an estimate's figures from its rows, to the cent —
 * line totals (quantity × unit price, half up, once), day-billed quantities (units per day × the
 * room's drying days, else the estimate's), room subtotals, overhead, profit and tax, and the
 * room figures from length, width and height. The expected figures are worked out by hand below.
 */
import {
  lineTotalCents,
  quantityX100,
  toEstimate,
  totalsOf,
  type EstimateRecord,
  type LineRow,
  type RoomRow,
} from '../../src/domain/estimates/estimate-records';
import { ApiError } from '../../src/platform/errors';

const room = (
  id: string,
  name: string,
  size: [number, number, number] | null,
  dryingDays: number,
  position: number,
): RoomRow => ({
  id,
  name,
  length_x100: size ? size[0] * 100 : null,
  width_x100: size ? size[1] * 100 : null,
  height_x100: size ? size[2] * 100 : null,
  demo_days: 0,
  drying_days: dryingDays,
  position,
});

let position = 0;
/** A line of `quantity` (or `perDay` units a day) at `cents` each. */
function line(
  id: string,
  roomId: string | null,
  cents: number,
  amount: { quantity: number } | { perDay: number },
): LineRow {
  const perDay = 'perDay' in amount;
  return {
    id,
    room_id: roomId,
    code: perDay ? 'DRY-AM-STD' : null,
    description: id,
    unit: perDay ? 'DA' : 'SF',
    category: null,
    per_day: perDay,
    units_per_day_x100: perDay ? Math.round(amount.perDay * 100) : null,
    quantity_x100: perDay ? null : Math.round(amount.quantity * 100),
    unit_price_cents: cents,
    note: null,
    position: position++,
  };
}

/** A water loss: a kitchen (4 drying days), a hall (3), and lines of the estimate itself (3 days). */
function waterLoss(
  rates = { overhead: 1000, profit: 1000, tax: 625 },
  dryingDays: number | null = 3,
): EstimateRecord {
  return {
    estimate: {
      id: 'est_1',
      job_id: 'job_1',
      job_number: 16,
      label: 'Estimate 1',
      scope_summary: null,
      drying_days: dryingDays,
      status: 'draft',
      finalized_at: null,
      region_code: 'IL',
      region_factor_x100: 100,
      overhead_rate_bp: rates.overhead,
      profit_rate_bp: rates.profit,
      tax_rate_bp: rates.tax,
      created_by: 'per_1',
      created_by_name: 'Avery Stone',
      created_at: new Date('2026-03-02T15:00:00Z'),
      updated_at: new Date('2026-03-02T15:00:00Z'),
      version: 1,
    },
    rooms: [room('room_k', 'Kitchen', [14, 12.5, 8], 4, 0), room('room_h', 'Hall', [20, 4, 8], 3, 1)],
    lines: [
      line('extraction', 'room_k', 62, { quantity: 168 }), //   168 × $0.62           = $104.16
      line('air movers', 'room_k', 3500, { perDay: 3 }), //      3 × 4 days × $35.00   = $420.00
      line('drywall', 'room_k', 217, { quantity: 37.33 }), //   37.33 × $2.17 = 81.0061 → $81.01
      line('baseboard', 'room_h', 199, { quantity: 12.25 }), // 12.25 × $1.99 = 24.3775 → $24.38
      line('hall movers', 'room_h', 3500, { perDay: 2 }), //     2 × 3 days × $35.00   = $210.00
      line('dehumidifier', null, 4500, { perDay: 1 }), //        1 × 3 days × $45.00   = $135.00
      line('service call', null, 29500, { quantity: 1 }), //                            $295.00
    ],
  };
}

describe('totals to the cent', () => {
  it('adds lines into room subtotals and the subtotal, then overhead, profit and tax, each rounded half up once', () => {
    const record = waterLoss();
    const estimate = toEstimate(record);
    expect(estimate.rooms.map((r) => [r.name, r.subtotal_cents])).toEqual([
      ['Kitchen', 10416 + 42000 + 8101],
      ['Hall', 2438 + 21000],
    ]);
    expect(estimate.unassigned_lines.map((l) => l.total_cents)).toEqual([13500, 29500]);
    // 126,955 ¢: overhead and profit 10% = 12,695.5 → 12,696 each; tax 6.25% of 152,347 = 9,521.6875 → 9,522.
    expect(totalsOf(record)).toEqual({
      subtotal_cents: 126955,
      overhead_cents: 12696,
      profit_cents: 12696,
      tax_cents: 9522,
      total_cents: 161869,
      currency: 'USD',
    });
    expect(estimate.totals).toEqual(totalsOf(record));
    expect(estimate.rates).toEqual({ overhead_pct: 10, profit_pct: 10, tax_pct: 6.25 });
  });

  it('is exact where floating point is not: 3 × $0.10 is $0.30 and 0.5 ¢ rounds up', () => {
    const record = waterLoss({ overhead: 0, profit: 0, tax: 0 });
    record.lines = [
      line('a', null, 10, { quantity: 3 }),
      line('b', null, 1, { quantity: 0.5 }),
      line('c', null, 1, { quantity: 0.49 }),
      line('d', null, 3333, { quantity: 0.03 }),
    ];
    expect(record.lines.map((l) => lineTotalCents(l, record.rooms, record.estimate))).toEqual([
      30, 1, 0, 100,
    ]);
    expect(totalsOf(record)).toMatchObject({
      subtotal_cents: 131,
      overhead_cents: 0,
      profit_cents: 0,
      tax_cents: 0,
      total_cents: 131,
    });
  });

  it('applies tax to the subtotal with overhead and profit', () => {
    const record = waterLoss({ overhead: 1500, profit: 500, tax: 1000 });
    record.lines = [line('a', null, 100000, { quantity: 1 })];
    expect(totalsOf(record)).toMatchObject({
      subtotal_cents: 100000,
      overhead_cents: 15000,
      profit_cents: 5000,
      tax_cents: 12000,
      total_cents: 132000,
    });
  });

  it('is zero for an estimate with no lines', () => {
    const record = waterLoss();
    record.lines = [];
    expect(totalsOf(record)).toEqual({
      subtotal_cents: 0,
      overhead_cents: 0,
      profit_cents: 0,
      tax_cents: 0,
      total_cents: 0,
      currency: 'USD',
    });
  });
});

describe('day-billed quantities', () => {
  it("are units per day × the room's drying days, else the estimate's, else none", () => {
    const record = waterLoss();
    const [, kitchenMovers, , , hallMovers, unassigned] = record.lines;
    expect(
      [kitchenMovers, hallMovers, unassigned].map((l) => quantityX100(l, record.rooms, record.estimate)),
    ).toEqual([1200, 600, 300]);
    expect(quantityX100(unassigned, record.rooms, { drying_days: null })).toBe(0);
    // A line whose room is gone counts the estimate's days.
    expect(quantityX100({ ...kitchenMovers, room_id: 'room_gone' }, record.rooms, record.estimate)).toBe(900);
  });

  it('follow the drying days: a room billed for 5 days bills 5 days of each line', () => {
    const record = waterLoss();
    const before = toEstimate(record).rooms[0].subtotal_cents;
    record.rooms[0] = { ...record.rooms[0], drying_days: 5 };
    const after = toEstimate(record);
    expect(after.rooms[0].lines!.find((l) => l.id === 'air movers')).toMatchObject({
      units_per_day: 3,
      quantity: 15,
      total_cents: 52500,
    });
    expect(after.rooms[0].subtotal_cents - before).toBe(52500 - 42000);
  });
});

describe('the estimate as get_estimate answers it', () => {
  it('gives each room its floor, perimeter, wall area and volume, or null without the measures', () => {
    const record = waterLoss();
    record.rooms.push(room('room_b', 'Bath', null, 2, 2));
    expect(
      toEstimate(record).rooms.map((r) => [
        r.name,
        r.floor_area_sf,
        r.perimeter_lf,
        r.wall_area_sf,
        r.volume_cf,
      ]),
    ).toEqual([
      ['Kitchen', 175, 53, 424, 1400],
      ['Hall', 80, 48, 384, 640],
      ['Bath', null, null, null, null],
    ]);
  });

  it('shows catalog and own lines with their quantities in units, not hundredths', () => {
    const lines = toEstimate(waterLoss()).rooms[0].lines!;
    expect(
      lines.map((l) => [l.id, l.source, l.quantity, l.units_per_day, l.unit_price_cents, l.total_cents]),
    ).toEqual([
      ['extraction', 'own', 168, null, 62, 10416],
      ['air movers', 'catalog', 12, 3, 3500, 42000],
      ['drywall', 'own', 37.33, null, 217, 8101],
    ]);
  });

  it('narrows to one room by name in any case, or sums rooms without their lines; the totals stay whole', () => {
    const record = waterLoss();
    const hall = toEstimate(record, { room: ' HALL ' });
    expect(hall.rooms.map((r) => r.name)).toEqual(['Hall']);
    expect(hall.unassigned_lines).toEqual([]);
    expect(hall.totals.total_cents).toBe(161869);
    const sums = toEstimate(record, { view: 'room_totals' });
    expect(sums.rooms.every((r) => r.lines === undefined)).toBe(true);
    expect(sums.unassigned_lines).toEqual([]);
    expect(sums.rooms.map((r) => r.subtotal_cents)).toEqual([60517, 23438]);
    expect(() => toEstimate(record, { room: 'Garage' })).toThrow(ApiError);
    expect(() => toEstimate(record, { room: 'Garage' })).toThrow(expect.objectContaining({ status: 404 }));
  });
});
