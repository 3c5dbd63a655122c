import type { AdminHandler } from '../tool';
import { newApiKey } from '../../platform/ids';
import { notFound } from '../../platform/errors';
import { changeKeys } from '../../platform/key-cache';
import { endGrantsOfKey } from '../../platform/oauth/grants';

/**
 * The old secret stops working on every node before the new one is answered, and so do the
 * assistants' grants approved with it.
 */
export const admin_rotate_key: AdminHandler<'admin_rotate_key'> = async ({ db }, { path }) => {
  const { key, prefix, hash } = newApiKey();
  const rotated = await changeKeys(db, async (trx) => {
    const [row] = await trx('api_keys')
      .where({ id: path.key_id })
      .whereNull('revoked_at')
      .update({ secret_hash: hash, prefix })
      .returning(['id', 'scope', 'person_id']);
    if (!row) throw notFound('active key');
    await endGrantsOfKey(trx, row.id);
    return row;
  });
  return { id: rotated.id, key, prefix, scope: rotated.scope, person_id: rotated.person_id };
};
