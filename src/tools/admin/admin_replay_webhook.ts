import type { AdminHandler } from '../tool';
import { replay } from '../../domain/webhooks/endpoints';

export const admin_replay_webhook: AdminHandler<'admin_replay_webhook'> = async ({ db }, { path, body }) => ({
  events: await replay(db, path.company_id, path.webhook_id, body),
});
