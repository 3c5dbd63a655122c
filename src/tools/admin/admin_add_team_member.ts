import type { AdminHandler } from '../tool';
import { newId } from '../../platform/ids';
import { requireCompany } from '../../domain/admin/companies';
import {
  cleanResponsibilities,
  PERSON_COLUMNS,
  toTeamMember,
  type PersonRow,
} from '../../domain/admin/team-members';

export const admin_add_team_member: AdminHandler<'admin_add_team_member'> = async (
  { db },
  { path, body },
) => {
  await requireCompany(db, path.company_id);
  const [person] = (await db('people')
    .insert({
      id: newId('per'),
      company_id: path.company_id,
      name: body.name.trim(),
      role: body.role,
      email: body.email ?? null,
      responsibilities: cleanResponsibilities(body.responsibilities) ?? '[]',
    })
    .returning([...PERSON_COLUMNS])) as PersonRow[];
  return toTeamMember(person);
};
