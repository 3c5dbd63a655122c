import type { ReadHandler } from '../tool';
import { verifySignedPdf } from '../../domain/forms/verify';

/** Whether the PDF sent is the form's signed PDF (domain/forms/verify.ts). */
export const verify_form: ReadHandler<'verify_form'> = async (ctx, { path, body }) =>
  verifySignedPdf(ctx.db, ctx.caller.companyId, path.form_id, body.pdf);
