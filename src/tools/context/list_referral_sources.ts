import type { ReadHandler } from '../tool';

export const list_referral_sources: ReadHandler<'list_referral_sources'> = async ({ db, caller }) => ({
  data: await db('referral_sources')
    .where({ company_id: caller.companyId })
    .orderBy('position')
    .select('name'),
  next_cursor: null,
});
