import type { Knex } from 'knex';
import type { WriteHandler } from '../tool';
import { undoLastAction, type UndoneAction } from '../../platform/undo';
import { undoEffects } from '../../domain/undo/undo-effects';
import type { Caller } from '../../platform/caller';

/** Thrown inside a preview's savepoint to roll the undo back once it is described. */
const PREVIEW_ONLY = Symbol('preview only');

export const undo_my_last_action: WriteHandler<'undo_my_last_action'> = async (ctx, { body }) => {
  if (body.preview) return { preview: true, undone: answerOf(await previewUndo(ctx.db, ctx.caller)) };
  const undone = await undoLastAction(ctx.db, ctx.caller, undoEffects(ctx.caller));
  ctx.changes.add(undone.change);
  return { preview: false, undone: answerOf(undone) };
};

/** Does the undo in a savepoint, with every check a real one makes, then rolls it back. */
async function previewUndo(db: Knex.Transaction, caller: Caller): Promise<UndoneAction> {
  let undone: UndoneAction | null = null;
  try {
    await db.transaction(async (savepoint) => {
      undone = await undoLastAction(savepoint, caller, undoEffects(caller));
      throw PREVIEW_ONLY;
    });
  } catch (error) {
    if (error !== PREVIEW_ONLY) throw error;
  }
  return undone!;
}

function answerOf(undone: UndoneAction) {
  return {
    tool: undone.tool,
    summary: undone.summary,
    at: new Date(undone.at).toISOString(),
    record: undone.record,
    job: undone.job,
    effect: undone.effect,
    credits_refunded: undone.creditsRefunded,
  };
}
