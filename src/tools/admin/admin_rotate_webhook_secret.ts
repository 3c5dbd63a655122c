import type { AdminHandler } from '../tool';
import { endpointAnswer, rotateSecret } from '../../domain/webhooks/endpoints';

const A_DAY = 86_400;

export const admin_rotate_webhook_secret: AdminHandler<'admin_rotate_webhook_secret'> = async (
  { db },
  { path, body },
) => {
  const row = await rotateSecret(db, path.company_id, path.webhook_id, body?.grace_seconds ?? A_DAY);
  return { ...endpointAnswer(row), secret: row.secret };
};
