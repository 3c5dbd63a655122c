import type { AdminHandler } from '../tool';
import { deleteEndpoint } from '../../domain/webhooks/endpoints';

export const admin_delete_webhook: AdminHandler<'admin_delete_webhook'> = async ({ db }, { path }) => {
  await deleteEndpoint(db, path.company_id, path.webhook_id);
  return undefined;
};
