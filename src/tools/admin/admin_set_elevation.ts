import type { AdminHandler } from '../tool';
import { notFound } from '../../platform/errors';

export const admin_set_elevation: AdminHandler<'admin_set_elevation'> = async ({ db }, { path, body }) => {
  const [company] = await db('companies')
    .where({ id: path.company_id })
    .update({ elevation_ft: body.elevation_ft })
    .returning(['elevation_ft']);
  if (!company) throw notFound('company');
  return { elevation_ft: company.elevation_ft };
};
