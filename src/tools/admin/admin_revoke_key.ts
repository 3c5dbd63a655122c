import type { AdminHandler } from '../tool';
import { notFound } from '../../platform/errors';
import { changeKeys } from '../../platform/key-cache';

/** Revoking is idempotent: a key revoked before answers 204 again. Every node stops the key before the answer. */
export const admin_revoke_key: AdminHandler<'admin_revoke_key'> = async ({ db }, { path }) => {
  await changeKeys(db, async (trx) => {
    const key = await trx('api_keys').where({ id: path.key_id }).first('id', 'revoked_at');
    if (!key) throw notFound('key');
    if (!key.revoked_at)
      await trx('api_keys').where({ id: path.key_id }).update({ revoked_at: trx.fn.now() });
  });
  return undefined;
};
