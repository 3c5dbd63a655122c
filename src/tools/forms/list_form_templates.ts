import type { ReadHandler } from '../tool';
import { listTemplates } from '../../domain/forms/templates';

/** The templates in use; archived ones make no new forms, so an assistant is not offered them. */
export const list_form_templates: ReadHandler<'list_form_templates'> = async ({ db, caller }) => ({
  data: await listTemplates(db, caller.companyId, { withArchived: false }),
  next_cursor: null,
});
