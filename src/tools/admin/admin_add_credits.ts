import type { AdminHandler } from '../tool';
import { invalidRequest } from '../../platform/errors';
import { requireCompany } from '../../domain/admin/companies';

/** The most credits a company can hold (the spec's limit, well inside the integer column). */
export const MAX_CREDITS = 1_000_000_000;

export const admin_add_credits: AdminHandler<'admin_add_credits'> = async ({ db }, { path, body }) => {
  // The limit is checked in the same statement that adds, so two adds at once cannot pass it together.
  const [company] = await db('companies')
    .where({ id: path.company_id })
    .whereRaw('credits + ? <= ?', [body.add, MAX_CREDITS])
    .update({ credits: db.raw('greatest(0, credits + ?)', [body.add]) })
    .returning('credits');
  if (company) return { credits: company.credits };
  await requireCompany(db, path.company_id);
  throw invalidRequest([
    {
      path: '/body/add',
      message: `would take the balance past ${MAX_CREDITS.toLocaleString('en-US')} credits`,
    },
  ]);
};
