import type { WriteHandler } from '../tool';
import { loadEstimate, requireDraft, toLine, totalsOf } from '../../domain/estimates/estimate-records';
import { recordEstimateChange } from '../../domain/estimates/estimate-changes';
import { addLines } from '../../domain/estimates/line-items';

export const add_line_items: WriteHandler<'add_line_items'> = async (ctx, { path, body }) => {
  const record = await loadEstimate(ctx.db, ctx.caller, path.estimate_id);
  requireDraft(record);
  const { added, rejected } = await addLines(ctx, record, body.line_items);
  if (added.length > 0)
    await recordEstimateChange(
      ctx,
      record,
      'estimate.lines_added',
      `${added.length} line${added.length === 1 ? '' : 's'} added`,
    );
  return { added: added.map((line) => toLine(line, record)), rejected, totals: totalsOf(record) };
};
