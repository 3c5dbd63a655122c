import type { AdminHandler } from '../../platform/handler';
import { newApiKey } from '../../platform/ids';
import { notFound } from '../../platform/errors';
import { forgetKnownKeys } from '../../platform/auth';

export const admin_rotate_key: AdminHandler<'admin_rotate_key'> = async ({ db }, { path }) => {
  const { key, prefix, hash } = newApiKey();
  const [rotated] = await db('api_keys')
    .where({ id: path.key_id })
    .whereNull('revoked_at')
    .update({ secret_hash: hash, prefix })
    .returning(['id', 'scope', 'person_id']);
  if (!rotated) throw notFound('active key');
  forgetKnownKeys();
  return { id: rotated.id, key, prefix, scope: rotated.scope, person_id: rotated.person_id };
};
