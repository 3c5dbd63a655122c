import type { AdminHandler } from '../tool';
import { notFound } from '../../platform/errors';
import { changeKeys } from '../../platform/key-cache';
import { endGrantsOfKey } from '../../platform/oauth/grants';

/**
 * Revoking is idempotent: a key revoked before answers 204 again. Every node stops the key, and the
 * assistants' grants approved with it, before the answer.
 */
export const admin_revoke_key: AdminHandler<'admin_revoke_key'> = async ({ db }, { path }) => {
  await changeKeys(db, async (trx) => {
    const key = await trx('api_keys').where({ id: path.key_id }).first('id', 'revoked_at');
    if (!key) throw notFound('key');
    if (key.revoked_at) return;
    await trx('api_keys').where({ id: path.key_id }).update({ revoked_at: trx.fn.now() });
    await endGrantsOfKey(trx, path.key_id);
  });
  return undefined;
};
