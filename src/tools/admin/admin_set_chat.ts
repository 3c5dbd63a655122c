import type { AdminHandler } from '../tool';
import { notFound } from '../../platform/errors';
import { checkWebhookTarget } from '../../platform/webhook-target';
import { changeKeys } from '../../platform/key-cache';

export const admin_set_chat: AdminHandler<'admin_set_chat'> = async ({ db, config }, { path, body }) => {
  if (body.webhook_url) await checkWebhookTarget(body.webhook_url, config.chat.allowPrivateTargets);
  // Callers carry their company's chat settings (platform/caller.ts): every node forgets them.
  const [company] = await changeKeys(db, (trx) =>
    trx('companies')
      .where({ id: path.company_id })
      .update({ chat_webhook_url: body.webhook_url, chat_new_note: body.new_note })
      .returning(['chat_webhook_url', 'chat_new_note']),
  );
  if (!company) throw notFound('company');
  return {
    connected: Boolean(company.chat_webhook_url),
    new_note: company.chat_new_note,
    webhook_url: company.chat_webhook_url,
  };
};
