import type { AdminHandler } from '../tool';
import { listAttempts } from '../../domain/webhooks/endpoints';
import { encodeCursor, pageOf } from '../../platform/pagination';

export const admin_list_webhook_attempts: AdminHandler<'admin_list_webhook_attempts'> = async (
  { db },
  { path, query },
) => {
  const limit = query.limit ?? 25;
  const rows = await listAttempts(db, path.company_id, path.webhook_id, { ...query, limit });
  return pageOf(
    rows,
    limit,
    (row) => ({
      id: String(row.id),
      event_id: String(row.entry_seq),
      attempt: row.attempt,
      at: new Date(row.at).toISOString(),
      status_code: row.status_code,
      latency_ms: row.latency_ms,
      error: row.error,
      delivered: row.delivered,
      replay: row.replay,
    }),
    (row) => encodeCursor({ id: Number(row.id) }),
  );
};
