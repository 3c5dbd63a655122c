import type { AdminHandler } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { requireCompany } from './companies';

export const admin_add_team_member: AdminHandler<'admin_add_team_member'> = async ({ db }, { path, body }) => {
  await requireCompany(db, path.company_id);
  const [person] = await db('people')
    .insert({ id: newId('per'), company_id: path.company_id, name: body.name.trim(), role: body.role, email: body.email ?? null })
    .returning(['id', 'name', 'role', 'email']);
  return person;
};
