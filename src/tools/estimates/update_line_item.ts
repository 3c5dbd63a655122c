import type { WriteHandler } from '../tool';
import { invalidRequest, notFound } from '../../platform/errors';
import { toHundredths } from '../../platform/money';
import {
  loadEstimate,
  requireDraft,
  toLine,
  totalsOf,
  type LineRow,
} from '../../domain/estimates/estimate-records';
import { recordEstimateChange } from '../../domain/estimates/estimate-changes';

/** Quantity (or units per day of a day-billed line) and note; the price stays as it was set. */
export const update_line_item: WriteHandler<'update_line_item'> = async (ctx, { path, body }) => {
  const record = await loadEstimate(ctx.db, ctx.caller, path.estimate_id);
  requireDraft(record);
  const line = record.lines.find((l) => l.id === path.line_id);
  if (!line) throw notFound('line on this estimate');

  const followsDays = line.units_per_day_x100 !== null;
  if (body.quantity !== undefined && followsDays) {
    throw invalidRequest([
      { path: '/body/quantity', message: 'this line is billed by the day: change units_per_day' },
    ]);
  }
  if (body.units_per_day !== undefined && !followsDays) {
    throw invalidRequest([
      { path: '/body/units_per_day', message: 'this line has a quantity of its own: change quantity' },
    ]);
  }
  const patch: Partial<LineRow> = {};
  if (body.quantity !== undefined) patch.quantity_x100 = toHundredths(body.quantity);
  if (body.units_per_day !== undefined) patch.units_per_day_x100 = toHundredths(body.units_per_day);
  if (body.note !== undefined) patch.note = body.note;
  // Only what really changes is written; a request that changes nothing answers the line as it is.
  for (const key of Object.keys(patch) as (keyof LineRow)[]) if (patch[key] === line[key]) delete patch[key];
  if (Object.keys(patch).length === 0) return { line: toLine(line, record), totals: totalsOf(record) };

  Object.assign(line, await ctx.rows.update('estimate_lines', line.id, patch));
  await recordEstimateChange(ctx, record, 'estimate.line_updated', `line ${line.description} changed`);
  return { line: toLine(line, record), totals: totalsOf(record) };
};
