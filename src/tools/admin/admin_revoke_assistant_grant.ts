import type { AdminHandler } from '../tool';
import { notFound } from '../../platform/errors';
import { revokeGrant } from '../../platform/oauth/grants';

/** Every node stops the grant's tokens before the answer (changeKeys). */
export const admin_revoke_assistant_grant: AdminHandler<'admin_revoke_assistant_grant'> = async (
  { db },
  { path },
) => {
  if (!(await revokeGrant(db, path.company_id, path.grant_id))) throw notFound('assistant grant');
  return undefined;
};
