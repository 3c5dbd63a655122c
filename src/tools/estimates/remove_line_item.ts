import type { WriteHandler } from '../tool';
import { notFound } from '../../platform/errors';
import { loadEstimate, requireDraft, totalsOf } from '../../domain/estimates/estimate-records';
import { recordEstimateChange } from '../../domain/estimates/estimate-changes';

export const remove_line_item: WriteHandler<'remove_line_item'> = async (ctx, { path }) => {
  const record = await loadEstimate(ctx.db, ctx.caller, path.estimate_id);
  requireDraft(record);
  const line = record.lines.find((l) => l.id === path.line_id);
  if (!line) throw notFound('line on this estimate');
  await ctx.rows.remove('estimate_lines', line.id);
  record.lines = record.lines.filter((l) => l.id !== line.id);
  await recordEstimateChange(ctx, record, 'estimate.line_removed', `line ${line.description} removed`);
  return { removed: line.id, totals: totalsOf(record) };
};
