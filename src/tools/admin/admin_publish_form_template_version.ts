import type { AdminHandler } from '../tool';
import { publishVersion } from '../../domain/forms/templates';

export const admin_publish_form_template_version: AdminHandler<
  'admin_publish_form_template_version'
> = async ({ db }, { path, body }) => publishVersion(db, path.company_id, path.template_id, body);
