import type { AdminHandler } from '../../platform/handler';
import { requireCompany } from './companies';
import { pageByCreation } from './creation-order';

interface PersonRow {
  id: string;
  name: string;
  role: string;
  email: string | null;
}

export const admin_list_team: AdminHandler<'admin_list_team'> = async ({ db }, { path, query }) => {
  await requireCompany(db, path.company_id);
  const people = db('people as p').where('p.company_id', path.company_id).select('p.id', 'p.name', 'p.role', 'p.email');
  return pageByCreation(people, 'p', query, (row: PersonRow) => ({ id: row.id, name: row.name, role: row.role, email: row.email }));
};
