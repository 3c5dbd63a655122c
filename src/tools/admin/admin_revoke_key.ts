import type { AdminHandler } from '../../platform/handler';
import { notFound } from '../../platform/errors';
import { forgetKnownKeys } from '../../platform/auth';

/** Revoking is idempotent: a key revoked before answers 204 again. */
export const admin_revoke_key: AdminHandler<'admin_revoke_key'> = async ({ db }, { path }) => {
  const key = await db('api_keys').where({ id: path.key_id }).first('id', 'revoked_at');
  if (!key) throw notFound('key');
  if (!key.revoked_at) await db('api_keys').where({ id: path.key_id }).update({ revoked_at: db.fn.now() });
  forgetKnownKeys();
  return undefined;
};
