import type { AdminHandler } from '../tool';
import { requireCompany } from '../../domain/admin/companies';
import { listTemplates } from '../../domain/forms/templates';

export const admin_list_form_templates: AdminHandler<'admin_list_form_templates'> = async (
  { db },
  { path },
) => {
  await requireCompany(db, path.company_id);
  return { data: await listTemplates(db, path.company_id, { withArchived: true }), next_cursor: null };
};
