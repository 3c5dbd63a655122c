import type { AdminHandler } from '../tool';
import { archiveTemplate } from '../../domain/forms/templates';

export const admin_archive_form_template: AdminHandler<'admin_archive_form_template'> = async (
  { db },
  { path },
) => archiveTemplate(db, path.company_id, path.template_id);
