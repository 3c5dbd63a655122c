import type { AdminHandler } from '../tool';
import { invalidRequest } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { lockCompany } from '../../domain/admin/companies';

/** Jobs keep the name they were tagged with, so the list can be replaced whole. */
export const admin_set_referral_sources: AdminHandler<'admin_set_referral_sources'> = async (
  { db },
  { path, body },
) => {
  const names = body.referral_sources.map((name) => name.trim());
  if (new Set(names.map((n) => n.toLowerCase())).size !== names.length) {
    throw invalidRequest([{ path: '/body/referral_sources', message: 'must not name a source twice' }]);
  }
  await db.transaction(async (trx) => {
    await lockCompany(trx, path.company_id);
    await trx('referral_sources').where({ company_id: path.company_id }).delete();
    if (names.length > 0) {
      await trx('referral_sources').insert(
        names.map((name, i) => ({ id: newId('ref'), company_id: path.company_id, name, position: i + 1 })),
      );
    }
  });
  return { data: names.map((name) => ({ name })) };
};
