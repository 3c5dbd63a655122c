import type { WriteHandler } from '../../platform/handler';
import { undoLastAction } from '../../platform/undo';

export const undo_my_last_action: WriteHandler<'undo_my_last_action'> = async (ctx) => {
  const undone = await undoLastAction(ctx.db, ctx.caller);
  ctx.changes.add(undone.change);
  return { undone: { tool: undone.tool, summary: undone.summary, at: new Date(undone.at).toISOString() } };
};
