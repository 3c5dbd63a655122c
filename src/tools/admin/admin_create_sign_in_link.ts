import type { AdminHandler } from '../tool';
import { unknownName } from '../../platform/errors';
import { createSignIn } from '../../platform/oauth/sign-ins';
import { requireCompany } from '../../domain/admin/companies';

export const admin_create_sign_in_link: AdminHandler<'admin_create_sign_in_link'> = async ({ db, config }, { path, body }) => {
  await requireCompany(db, path.company_id);
  const person = await db('people').where({ id: body.person_id, company_id: path.company_id }).first('id', 'name');
  if (!person) {
    const team = await db('people').where({ company_id: path.company_id }).orderBy('name').pluck('id');
    throw unknownName('unknown_person', 'team member', body.person_id, team);
  }
  const { code, expiresAt } = await createSignIn(db, path.company_id, person.id, body.scope, body.expires_in ?? 1800);
  return { url: `${config.publicUrl}/oauth/sign-in?code=${code}`, person: { id: person.id, name: person.name }, scope: body.scope, expires_at: expiresAt.toISOString() };
};
