import type { ReadHandler } from '../tool';
import { localDate, localTimeWithOffset } from '../../platform/local-time';

export const get_context: ReadHandler<'get_context'> = async ({ db, caller }) => {
  const now = new Date();
  const company = await db('companies')
    .where({ id: caller.companyId })
    .first('credits', 'chat_webhook_url', 'chat_new_note');
  return {
    person: { id: caller.personId, name: caller.personName, role: caller.personRole },
    company: {
      id: caller.companyId,
      name: caller.companyName,
      timezone: caller.timezone,
      today: localDate(now, caller.timezone),
      local_time: localTimeWithOffset(now, caller.timezone),
    },
    key: { id: caller.keyId, prefix: caller.keyPrefix, scope: caller.scope },
    chat: {
      connected: Boolean(company.chat_webhook_url),
      new_note: Boolean(company.chat_webhook_url) && company.chat_new_note,
    },
    credits: { remaining: company.credits },
  };
};
