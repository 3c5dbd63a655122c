import type { AdminHandler } from '../tool';
import { newApiKey, newId } from '../../platform/ids';
import { changeKeys } from '../../platform/key-cache';
import { requireCompany, requireTeamMember } from '../../domain/admin/companies';

export const admin_create_key: AdminHandler<'admin_create_key'> = async ({ db }, { path, body }) => {
  await requireCompany(db, path.company_id);
  await requireTeamMember(db, path.company_id, body.person_id);
  const { key, prefix, hash } = newApiKey();
  const id = newId('key');
  // A key change as any other: every node knows the new key stands before the answer, so that it
  // is answered even from an address over its failed-authentication budget (platform/auth).
  await changeKeys(db, (trx) =>
    trx('api_keys').insert({
      id,
      company_id: path.company_id,
      person_id: body.person_id,
      scope: body.scope,
      prefix,
      secret_hash: hash,
    }),
  );
  return { id, key, prefix, scope: body.scope, person_id: body.person_id };
};
