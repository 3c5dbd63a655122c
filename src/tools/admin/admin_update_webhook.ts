import type { AdminHandler } from '../tool';
import {
  checkEndpointUrl,
  checkEvents,
  endpointAnswer,
  updateEndpoint,
} from '../../domain/webhooks/endpoints';

export const admin_update_webhook: AdminHandler<'admin_update_webhook'> = async (
  { db, config },
  { path, body },
) => {
  const events = body.events === undefined ? undefined : checkEvents(body.events);
  if (body.url !== undefined) await checkEndpointUrl(body.url, config.webhooks.allowPrivateTargets);
  return endpointAnswer(await updateEndpoint(db, path.company_id, path.webhook_id, { ...body, events }));
};
