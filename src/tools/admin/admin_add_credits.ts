import type { AdminHandler } from '../../platform/handler';
import { notFound } from '../../platform/errors';

export const admin_add_credits: AdminHandler<'admin_add_credits'> = async ({ db }, { path, body }) => {
  const [company] = await db('companies')
    .where({ id: path.company_id })
    .update({ credits: db.raw('greatest(0, credits + ?)', [body.add]) })
    .returning('credits');
  if (!company) throw notFound('company');
  return { credits: company.credits };
};
