import type { AdminHandler } from '../tool';
import { findTemplate } from '../../domain/forms/templates';

export const admin_get_form_template: AdminHandler<'admin_get_form_template'> = async (
  { db },
  { path, query },
) => findTemplate(db, path.company_id, path.template_id, query.version);
