import { notFound } from '../../platform/errors';
import type { AdminHandler } from '../tool';
import { requireCompany } from '../../domain/admin/companies';
import {
  cleanResponsibilities,
  PERSON_COLUMNS,
  toTeamMember,
  type PersonRow,
} from '../../domain/admin/team-members';

export const admin_update_team_member: AdminHandler<'admin_update_team_member'> = async (
  { db },
  { path, body },
) => {
  await requireCompany(db, path.company_id);
  const patch = {
    role: body.role,
    email: body.email,
    responsibilities: cleanResponsibilities(body.responsibilities),
  };
  const [person] = (await db('people')
    .where({ id: path.person_id, company_id: path.company_id })
    .update(Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)))
    .returning([...PERSON_COLUMNS])) as PersonRow[];
  if (!person) throw notFound('team member');
  return toTeamMember(person);
};
