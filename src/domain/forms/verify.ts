/**
 * verify_form: a PDF is the form's signed one when its SHA-256 is the one kept on the form when the
 * last signer signed. The hash is of the whole file, so any change to it (a word, a picture, the
 * audit page) shows.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { findForm, formStateOf } from './form-records';

type FormVerification = components['schemas']['FormVerification'];

export async function verifySignedPdf(
  db: Knex,
  companyId: string,
  formId: string,
  pdf: Buffer,
): Promise<FormVerification> {
  const form = await findForm(db, companyId, formId);
  const sha256 = createHash('sha256').update(pdf).digest('hex');
  return {
    form_id: form.id,
    matches: form.signed_pdf_sha256 !== null && form.signed_pdf_sha256 === sha256,
    sha256,
    signed_pdf_sha256: form.signed_pdf_sha256,
    form_state: formStateOf(form),
    signed_at: form.signed_at ? new Date(form.signed_at).toISOString() : null,
  };
}
