/**
 * A signed form's PDF, made when its last signer signs: laid out in the form PDF pool from the
 * form as kept and each signer's part, stored, and added to the job's documents (Files tab),
 * entered as the person who asked for the signatures, in the signature's transaction.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { newId } from '../../platform/ids';
import type { Deps } from '../services';
import { storageKey } from '../media/storage-keys';
import type { FormRow, SignerRow } from './form-records';
import type { FormPdfData } from './form-pdf-document';

/**
 * Makes the signed PDF in the pool, stores it, and adds it to the job's documents (Files tab),
 * entered as the person who asked for the signatures. A rollback after the store leaves an object
 * no row names, which the file sweeper removes.
 */
export async function keepSignedPdf(
  deps: Pick<Deps, 'media'>,
  trx: Knex.Transaction,
  form: FormRow,
  signers: SignerRow[],
  names: { companyName: string; jobNumber: number },
): Promise<{ documentId: string; sha256: string }> {
  const data = await signedFormPdfData(trx, form, signers, names);
  const dir = await mkdtemp(path.join(tmpdir(), 'form-pdf-'));
  try {
    const out = path.join(dir, 'signed.pdf');
    const pdf = await deps.media.forms.build(data, out);
    await deps.media.files.putFile(
      storageKey(form.company_id, pdf.sha256, 'original'),
      out,
      'application/pdf',
    );
    await trx('stored_files')
      .insert({
        company_id: form.company_id,
        sha256: pdf.sha256,
        kind: 'document',
        format: 'pdf',
        bytes: pdf.bytes,
        renditions: '{}',
        facts: JSON.stringify({ page_count: pdf.pages, encrypted: false }),
        stored_at: trx.fn.now(),
      })
      .onConflict(['company_id', 'sha256'])
      .ignore();
    const documentId = newId('doc');
    await trx('documents').insert({
      id: documentId,
      company_id: form.company_id,
      job_id: form.job_id,
      sha256: pdf.sha256,
      room: null,
      name: `${form.title} - signed.pdf`,
      uploaded_by: form.requested_by,
      uploaded_via: 'signed_form',
      version: 1,
    });
    return { documentId, sha256: pdf.sha256 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What a signed form's PDF is laid out from: the form as kept and each signer's part. The packet's
 * signed forms (export_pdf) can print the same from it.
 */
export async function signedFormPdfData(
  db: Knex,
  form: FormRow,
  signers: SignerRow[],
  names: { companyName: string; jobNumber: number },
): Promise<FormPdfData> {
  const requester = await db('people')
    .where({ company_id: form.company_id, id: form.requested_by })
    .first('name');
  return {
    form_id: form.id,
    company_name: names.companyName,
    job_number: names.jobNumber,
    title: form.title,
    kind: form.kind,
    template_id: form.template_id,
    template_version: form.template_version,
    body: form.body,
    document_sha256: form.document_sha256,
    fields: form.fields,
    requested_at: new Date(form.created_at).toISOString(),
    requested_by: requester?.name ?? '',
    expires_at: new Date(form.expires_at).toISOString(),
    signers: signers.map(signedPart),
  };
}

/** A signer of a form everyone has signed, as the PDF prints them. */
function signedPart(s: SignerRow): FormPdfData['signers'][number] {
  if (!s.signed_at || !s.signature || s.typed_name === null || !s.consent_version || s.consent_text === null)
    throw new Error(`signer ${s.id} of a signed form has no signature`);
  return {
    role: s.role,
    name: s.name,
    email: s.email,
    phone: s.phone,
    link_id: s.link_id,
    opened_at: s.opened_at ? new Date(s.opened_at).toISOString() : null,
    opened_ip: s.opened_ip,
    opened_user_agent: s.opened_user_agent,
    signed_at: new Date(s.signed_at).toISOString(),
    signed_ip: s.signed_ip,
    signed_user_agent: s.signed_user_agent,
    typed_name: s.typed_name,
    signature: s.signature,
    values: s.field_values ?? {},
    consent_version: s.consent_version,
    consent_text: s.consent_text,
  };
}
