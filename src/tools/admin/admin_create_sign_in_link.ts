import type { AdminHandler } from '../tool';
import { createSignIn } from '../../platform/oauth/sign-ins';
import { requireCompany, requireTeamMember } from '../../domain/admin/companies';

export const admin_create_sign_in_link: AdminHandler<'admin_create_sign_in_link'> = async (
  { db, config },
  { path, body },
) => {
  await requireCompany(db, path.company_id);
  const person = await requireTeamMember(db, path.company_id, body.person_id);
  const { code, expiresAt } = await createSignIn(
    db,
    path.company_id,
    person.id,
    body.scope,
    body.expires_in ?? 1800,
  );
  return {
    url: `${config.publicUrl}/oauth/sign-in?code=${code}`,
    person: { id: person.id, name: person.name },
    scope: body.scope,
    expires_at: expiresAt.toISOString(),
  };
};
