import type { AdminHandler } from '../tool';
import { endpointAnswer, listEndpoints } from '../../domain/webhooks/endpoints';

export const admin_list_webhooks: AdminHandler<'admin_list_webhooks'> = async ({ db }, { path }) => ({
  data: (await listEndpoints(db, path.company_id)).map(endpointAnswer),
  next_cursor: null,
});
