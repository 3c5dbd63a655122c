import type { ReadHandler } from '../../platform/handler';

export const list_team: ReadHandler<'list_team'> = async ({ db, caller }) => ({
  data: await db('people').where({ company_id: caller.companyId }).orderBy('name').select('id', 'name', 'role'),
  next_cursor: null,
});
