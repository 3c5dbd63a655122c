import type { Knex } from 'knex';
import type { WriteHandler } from '../tool';
import { lastChangeWords, undoLastAction, type UndoneAction, type UndoWords } from '../../platform/undo';
import { ApiError } from '../../platform/errors';
import { undoWords } from '../../domain/undo/undo-effects';
import type { Caller } from '../../platform/caller';

/** Thrown inside a preview's savepoint to roll the undo back once it is described. */
const PREVIEW_ONLY = Symbol('preview only');

export const undo_my_last_action: WriteHandler<'undo_my_last_action'> = async (ctx, { body }) => {
  const words = undoWords(ctx.caller);
  if (body.preview) return answerOf(true, await previewUndo(ctx.db, ctx.caller, words), words);
  const undone = await undoLastAction(ctx.db, ctx.caller, words);
  // Thrown after the undo's checks, so that the refusal names what would be taken back; the
  // pipeline's transaction then rolls the undo back.
  requireConfirmation(undone, body.confirm_skip, words);
  ctx.changes.add(undone.change);
  return answerOf(false, undone, words);
};

/** Does the undo in a savepoint, with every check a real one makes, then rolls it back. */
async function previewUndo(db: Knex.Transaction, caller: Caller, words: UndoWords): Promise<UndoneAction> {
  let undone: UndoneAction | null = null;
  try {
    await db.transaction(async (savepoint) => {
      undone = await undoLastAction(savepoint, caller, words);
      throw PREVIEW_ONLY;
    });
  } catch (error) {
    if (error !== PREVIEW_ONLY) throw error;
  }
  return undone!;
}

/**
 * Going past a change undo cannot take back needs `confirm_skip` naming it (the newest such
 * change), and a `confirm_skip` names exactly that one: a confirmation never covers a change the
 * person was not shown, nor stands for one when there is nothing to go past.
 */
function requireConfirmation(undone: UndoneAction, confirmSkip: string | undefined, words: UndoWords): void {
  const [last] = undone.passedOver;
  if (confirmSkip === last?.entryId) return;
  const instead = `Undo would take back "${undone.summary}" instead (${undone.effect}).`;
  const detail = last
    ? `${lastChangeWords(last, words)} ${instead} To take that back, send confirm_skip "${last.entryId}".`
    : `confirm_skip "${confirmSkip}" names no change undo would go past: the last change of this key is "${undone.summary}", which undo takes back. Preview again.`;
  throw new ApiError(409, 'confirmation_required', detail, {
    errors: [
      {
        path: '/body/confirm_skip',
        message: last
          ? `must be "${last.entryId}" to go past the change undo cannot take back`
          : 'must not be sent: undo goes past no change',
      },
    ],
    ...(last && {
      choice: {
        question: `${lastChangeWords(last, words)} ${instead} Take that back?`,
        confirm: { confirm_skip: last.entryId },
      },
    }),
  });
}

function answerOf(preview: boolean, undone: UndoneAction, words: UndoWords) {
  const [last] = undone.passedOver;
  return {
    preview,
    not_undoable: last
      ? {
          entry_id: last.entryId,
          action: last.action,
          summary: last.summary,
          at: new Date(last.at).toISOString(),
          record: words.recordOf(last),
          job: last.job,
          reason: words.whyNotUndoable(last),
          more: undone.passedOver.length - 1,
        }
      : null,
    undone: {
      tool: undone.tool,
      summary: undone.summary,
      at: new Date(undone.at).toISOString(),
      record: undone.record,
      job: undone.job,
      effect: undone.effect,
      credits_refunded: undone.creditsRefunded,
    },
  };
}
