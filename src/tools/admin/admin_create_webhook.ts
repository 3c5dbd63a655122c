import type { AdminHandler } from '../tool';
import {
  checkEndpointUrl,
  checkEvents,
  createEndpoint,
  endpointAnswer,
} from '../../domain/webhooks/endpoints';

/** The secret is answered this once; the listing never shows it. */
export const admin_create_webhook: AdminHandler<'admin_create_webhook'> = async (
  { db, config },
  { path, body },
) => {
  const events = checkEvents(body.events);
  await checkEndpointUrl(body.url, config.webhooks.allowPrivateTargets);
  const row = await createEndpoint(db, path.company_id, {
    url: body.url,
    events,
    description: body.description ?? '',
  });
  return { ...endpointAnswer(row), secret: row.secret };
};
