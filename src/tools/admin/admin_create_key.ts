import type { AdminHandler } from '../tool';
import { newApiKey, newId } from '../../platform/ids';
import { unknownName } from '../../platform/errors';
import { requireCompany } from '../../domain/admin/companies';

export const admin_create_key: AdminHandler<'admin_create_key'> = async ({ db }, { path, body }) => {
  await requireCompany(db, path.company_id);
  const person = await db('people').where({ id: body.person_id, company_id: path.company_id }).first('id');
  if (!person) {
    const team = await db('people').where({ company_id: path.company_id }).orderBy('name').pluck('id');
    throw unknownName('unknown_person', 'team member', body.person_id, team);
  }
  const { key, prefix, hash } = newApiKey();
  const id = newId('key');
  await db('api_keys').insert({ id, company_id: path.company_id, person_id: body.person_id, scope: body.scope, prefix, secret_hash: hash });
  return { id, key, prefix, scope: body.scope, person_id: body.person_id };
};
