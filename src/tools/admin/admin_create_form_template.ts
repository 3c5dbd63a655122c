import type { AdminHandler } from '../tool';
import { createTemplate } from '../../domain/forms/templates';

export const admin_create_form_template: AdminHandler<'admin_create_form_template'> = async (
  { db },
  { path, body },
) => createTemplate(db, path.company_id, body);
