/**
 * Reading estimates: the rows of an estimate, derived room figures, line quantities of
 * day-billed lines (units per day × drying days), and totals. Totals are computed, never stored.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { ApiError, notFound } from '../../platform/errors';
import { fromHundredths, percentOf, roundDiv } from '../../platform/money';
import { CURRENCY } from '../price-list/catalog';
import type { Caller } from '../../platform/caller';

export type Estimate = components['schemas']['Estimate'];
export type Room = components['schemas']['Room'];
export type Line = components['schemas']['Line'];
export type EstimateTotals = components['schemas']['EstimateTotals'];

export interface EstimateRow {
  id: string;
  job_id: string;
  job_number: number;
  label: string;
  scope_summary: string | null;
  drying_days: number | null;
  status: 'draft' | 'final';
  finalized_at: Date | null;
  region_code: string | null;
  region_factor_x100: number;
  overhead_rate_bp: number;
  profit_rate_bp: number;
  tax_rate_bp: number;
  created_by: string;
  created_by_name: string;
  created_at: Date;
  updated_at: Date;
  /** Raised by every change to the estimate, its rooms or its lines. */
  version: number;
}

export interface RoomRow {
  id: string;
  name: string;
  length_x100: number | null;
  width_x100: number | null;
  height_x100: number | null;
  demo_days: number;
  drying_days: number;
  position: number;
}

export interface LineRow {
  id: string;
  room_id: string | null;
  code: string | null;
  description: string;
  unit: string;
  category: string | null;
  per_day: boolean;
  units_per_day_x100: number | null;
  quantity_x100: number | null;
  unit_price_cents: number;
  note: string | null;
  position: number;
}

export interface EstimateRecord {
  estimate: EstimateRow;
  rooms: RoomRow[];
  lines: LineRow[];
}

/** The estimate of the caller's company, else 404. */
export async function loadEstimate(db: Knex, caller: Caller, estimateId: string): Promise<EstimateRecord> {
  const estimate = await db('estimates as e')
    .join('jobs as j', 'j.id', 'e.job_id')
    .join('people as p', 'p.id', 'e.created_by')
    .where({ 'e.id': estimateId, 'e.company_id': caller.companyId })
    .first('e.*', 'j.job_number', 'p.name as created_by_name');
  if (!estimate) throw notFound('estimate');
  const rooms = await db('estimate_rooms').where({ estimate_id: estimateId }).orderBy('position');
  const lines = await db('estimate_lines').where({ estimate_id: estimateId }).orderBy('position');
  return { estimate, rooms, lines };
}

/** The estimate a packet link names, while it is still on the link's job; else 404. */
export async function loadEstimateOfJob(
  db: Knex,
  caller: Caller,
  estimateId: string,
  jobId: string,
): Promise<EstimateRecord> {
  const record = await loadEstimate(db, caller, estimateId);
  if (record.estimate.job_id !== jobId)
    throw new ApiError(404, 'not_found', `Estimate ${estimateId} is no longer on this job.`);
  return record;
}

/** A final estimate can be read but not changed. */
export function requireDraft(record: EstimateRecord): void {
  if (record.estimate.status === 'final') {
    throw new ApiError(
      409,
      'invalid_state',
      `${record.estimate.label} is final (its PDF was downloaded) and can no longer be changed.`,
    );
  }
}

/** Quantity in hundredths: its own, or units per day × the drying days of its room or estimate. */
export function quantityX100(
  line: LineRow,
  rooms: RoomRow[],
  estimate: Pick<EstimateRow, 'drying_days'>,
): number {
  if (line.units_per_day_x100 === null) return line.quantity_x100 ?? 0;
  const room = rooms.find((r) => r.id === line.room_id);
  const days = room ? room.drying_days : (estimate.drying_days ?? 0);
  return line.units_per_day_x100 * days;
}

export function lineTotalCents(
  line: LineRow,
  rooms: RoomRow[],
  estimate: Pick<EstimateRow, 'drying_days'>,
): number {
  return roundDiv(quantityX100(line, rooms, estimate) * line.unit_price_cents, 100);
}

export function toLine(line: LineRow, record: EstimateRecord): Line {
  const quantity = quantityX100(line, record.rooms, record.estimate);
  return {
    id: line.id,
    room_id: line.room_id,
    source: line.code ? 'catalog' : 'own',
    code: line.code,
    description: line.description,
    unit: line.unit,
    category: line.category,
    per_day: line.per_day,
    units_per_day: line.units_per_day_x100 === null ? null : fromHundredths(line.units_per_day_x100),
    quantity: fromHundredths(quantity),
    unit_price_cents: line.unit_price_cents,
    total_cents: roundDiv(quantity * line.unit_price_cents, 100),
    note: line.note,
  };
}

export function totalsOf(record: EstimateRecord): EstimateTotals {
  const subtotal = record.lines.reduce(
    (sum, line) => sum + lineTotalCents(line, record.rooms, record.estimate),
    0,
  );
  const overhead = percentOf(subtotal, record.estimate.overhead_rate_bp);
  const profit = percentOf(subtotal, record.estimate.profit_rate_bp);
  const tax = percentOf(subtotal + overhead + profit, record.estimate.tax_rate_bp);
  return {
    subtotal_cents: subtotal,
    overhead_cents: overhead,
    profit_cents: profit,
    tax_cents: tax,
    total_cents: subtotal + overhead + profit + tax,
    currency: CURRENCY,
  };
}

const feet = (x100: number | null) => (x100 === null ? null : fromHundredths(x100));

/** Floor and wall area, perimeter and volume, from length, width and height in hundredths of a foot. */
function roomFigures(
  room: RoomRow,
): Pick<Room, 'floor_area_sf' | 'wall_area_sf' | 'perimeter_lf' | 'volume_cf'> {
  const { length_x100: l, width_x100: w, height_x100: h } = room;
  const area = l !== null && w !== null ? roundDiv(l * w, 100) : null; // hundredths of SF
  const perimeter = l !== null && w !== null ? 2 * (l + w) : null;
  return {
    floor_area_sf: area === null ? null : fromHundredths(area),
    perimeter_lf: perimeter === null ? null : fromHundredths(perimeter),
    wall_area_sf: perimeter !== null && h !== null ? fromHundredths(roundDiv(perimeter * h, 100)) : null,
    volume_cf: area !== null && h !== null ? fromHundredths(roundDiv(area * h, 100)) : null,
  };
}

export function toRoom(room: RoomRow, record: EstimateRecord, withLines: boolean): Room {
  const lines = record.lines.filter((line) => line.room_id === room.id);
  const shaped: Room = {
    id: room.id,
    name: room.name,
    length: feet(room.length_x100),
    width: feet(room.width_x100),
    height: feet(room.height_x100),
    demo_days: room.demo_days,
    drying_days: room.drying_days,
    ...roomFigures(room),
    subtotal_cents: lines.reduce((sum, line) => sum + lineTotalCents(line, record.rooms, record.estimate), 0),
  };
  if (withLines) shaped.lines = lines.map((line) => toLine(line, record));
  return shaped;
}

export function toEstimate(
  record: EstimateRecord,
  options: { view?: 'full' | 'room_totals'; room?: string } = {},
): Estimate {
  const { estimate } = record;
  const withLines = options.view !== 'room_totals';
  let rooms = record.rooms;
  if (options.room) {
    const wanted = options.room.trim().toLowerCase();
    rooms = rooms.filter((r) => r.id === options.room || r.name.toLowerCase() === wanted);
    if (rooms.length === 0) throw notFound('room on this estimate');
  }
  const showUnassigned = withLines && !options.room;
  return {
    id: estimate.id,
    job: { id: estimate.job_id, job_number: estimate.job_number },
    label: estimate.label,
    scope_summary: estimate.scope_summary,
    status: estimate.status,
    finalized_at: estimate.finalized_at ? estimate.finalized_at.toISOString() : null,
    drying_days: estimate.drying_days,
    region: { code: estimate.region_code, factor: estimate.region_factor_x100 / 100 },
    rates: {
      overhead_pct: estimate.overhead_rate_bp / 100,
      profit_pct: estimate.profit_rate_bp / 100,
      tax_pct: estimate.tax_rate_bp / 100,
    },
    rooms: rooms.map((room) => toRoom(room, record, withLines)),
    room_subtotals_exclude: ['overhead', 'profit', 'tax'],
    unassigned_lines: showUnassigned
      ? record.lines.filter((l) => l.room_id === null).map((l) => toLine(l, record))
      : [],
    totals: totalsOf(record),
    created_at: estimate.created_at.toISOString(),
    created_by: { id: estimate.created_by, name: estimate.created_by_name },
    updated_at: estimate.updated_at.toISOString(),
  };
}
