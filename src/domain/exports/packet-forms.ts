/**
 * The signed forms a packet prints (`signed_forms`): each signed form of the job that is not
 * voided, oldest signature first, as the data its own signed PDF was laid out from
 * (forms/form-pdf-document.ts): the frozen text, each signer's values, signature, typed name and
 * the facts of the audit page. Read as stored, never from the template or the job as they are now.
 */
import type { Knex } from 'knex';
import type { Caller } from '../../platform/caller';
import type { FormPdfData } from '../forms/form-pdf-document';
import { signersOf, type FormRow } from '../forms/form-records';

/** The job's signed forms (voided ones are not), oldest signature first. */
function signedForms(db: Knex, companyId: string, jobId: string): Knex.QueryBuilder {
  return db('job_forms as f').where({ 'f.company_id': companyId, 'f.job_id': jobId, 'f.state': 'signed' });
}

/** How many signed forms a packet of the job prints now. */
export async function signedFormCount(db: Knex, companyId: string, jobId: string): Promise<number> {
  const [{ count }] = (await signedForms(db, companyId, jobId).count({ count: '*' })) as {
    count: number | string;
  }[];
  return Number(count);
}

/** Each signed form of the job as its PDF prints it. */
export async function packetForms(db: Knex, caller: Caller, jobId: string): Promise<FormPdfData[]> {
  const forms = (await signedForms(db, caller.companyId, jobId)
    .join('jobs as j', 'j.id', 'f.job_id')
    .join('people as asker', 'asker.id', 'f.requested_by')
    .orderBy([
      { column: 'f.signed_at', order: 'asc' },
      { column: 'f.id', order: 'asc' },
    ])
    .select('f.*', 'j.job_number', 'asker.name as requested_by_name')) as (FormRow & {
    job_number: number;
    requested_by_name: string;
  })[];
  return Promise.all(
    forms.map(async (form) => ({
      form_id: form.id,
      company_name: caller.companyName,
      job_number: Number(form.job_number),
      title: form.title,
      kind: form.kind,
      template_id: form.template_id,
      template_version: form.template_version,
      body: form.body,
      document_sha256: form.document_sha256,
      fields: form.fields,
      requested_at: form.created_at.toISOString(),
      requested_by: form.requested_by_name,
      expires_at: form.expires_at.toISOString(),
      signers: (await signersOf(db, caller.companyId, form.id)).map((signer) => ({
        role: signer.role,
        name: signer.name,
        email: signer.email,
        phone: signer.phone,
        link_id: signer.link_id,
        opened_at: signer.opened_at?.toISOString() ?? null,
        opened_ip: signer.opened_ip,
        opened_user_agent: signer.opened_user_agent,
        signed_at: (signer.signed_at ?? form.signed_at ?? form.created_at).toISOString(),
        signed_ip: signer.signed_ip,
        signed_user_agent: signer.signed_user_agent,
        typed_name: signer.typed_name ?? signer.name,
        signature: signer.signature ?? { strokes: [], width: 1, height: 1 },
        values: signer.field_values ?? {},
        consent_version: signer.consent_version ?? '',
        consent_text: signer.consent_text ?? '',
      })),
    })),
  );
}
