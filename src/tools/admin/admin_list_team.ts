import type { AdminHandler } from '../tool';
import { requireCompany } from '../../domain/admin/companies';
import { pageByCreation } from '../../domain/admin/creation-order';
import { PERSON_COLUMNS, toTeamMember } from '../../domain/admin/team-members';

export const admin_list_team: AdminHandler<'admin_list_team'> = async ({ db }, { path, query }) => {
  await requireCompany(db, path.company_id);
  const people = db('people as p')
    .where('p.company_id', path.company_id)
    .select(PERSON_COLUMNS.map((column) => `p.${column}`));
  return pageByCreation(people, 'p', query, toTeamMember);
};
