/**
 * Forms sent for signature and their signers, as stored (migration 030): reading them, their
 * states, and the consent a signer agrees to. A form is `signed` once every signer has signed,
 * `declined` once one declined, `voided` when the office voided it; until then it is `sent` or
 * `opened`, and `expired` once its links have expired.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { notFound } from '../../platform/errors';
import type { FormKind, SignerRole, TemplateField } from './template-text';

export type FormState = components['schemas']['FormState'];
export type SignerState = 'sent' | 'opened' | 'signed' | 'declined';
type StoredFormState = Exclude<FormState, 'expired'>;

export interface FormRow {
  company_id: string;
  id: string;
  job_id: string;
  template_id: string;
  template_version: number;
  title: string;
  kind: FormKind;
  body: string;
  document_sha256: string;
  fields: TemplateField[];
  state: StoredFormState;
  expires_at: Date;
  requested_by: string;
  key_id: string;
  signed_at: Date | null;
  signed_pdf_sha256: string | null;
  signed_document_id: string | null;
  declined_at: Date | null;
  voided_at: Date | null;
  void_reason: string | null;
  version: number;
  created_at: Date;
}

/** A signature as drawn: strokes of points within a box of `width` × `height`, or a PNG (base64). */
export type Signature = { strokes: number[][][]; width: number; height: number } | { png: string };

export interface SignerRow {
  company_id: string;
  id: string;
  form_id: string;
  role: SignerRole;
  contact_id: string | null;
  person_id: string | null;
  name: string;
  email: string | null;
  phone: string | null;
  state: SignerState;
  link_id: string;
  opened_at: Date | null;
  opened_ip: string | null;
  opened_user_agent: string | null;
  signed_at: Date | null;
  signed_ip: string | null;
  signed_user_agent: string | null;
  typed_name: string | null;
  signature: Signature | null;
  field_values: Record<string, string | boolean> | null;
  consent_version: string | null;
  consent_text: string | null;
  declined_at: Date | null;
  decline_reason: string | null;
  version: number;
}

/** The order signers are listed and sign in the PDF. */
export const ROLE_ORDER: readonly SignerRole[] = ['customer', 'technician', 'office'];

/** The form's state as people see it: a form nobody finished is `expired` once its links have. */
export function formStateOf(form: Pick<FormRow, 'state' | 'expires_at'>, now = Date.now()): FormState {
  if ((form.state === 'sent' || form.state === 'opened') && new Date(form.expires_at).getTime() < now)
    return 'expired';
  return form.state;
}

/** The company's form, locked for the rest of the transaction when `lock`; 404 for another company's or none. */
export async function findForm(db: Knex, companyId: string, formId: string, lock = false): Promise<FormRow> {
  const query = db('job_forms').where({ company_id: companyId, id: formId });
  const form = (await (lock ? query.forUpdate() : query).first()) as FormRow | undefined;
  if (!form) throw notFound('form');
  return form;
}

export async function signersOf(db: Knex, companyId: string, formId: string): Promise<SignerRow[]> {
  const rows = (await db('job_form_signers').where({
    company_id: companyId,
    form_id: formId,
  })) as SignerRow[];
  return rows.sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role));
}

/** The fields a signer fills in. */
export function fieldsOf(form: Pick<FormRow, 'fields'>, role: SignerRole): TemplateField[] {
  return form.fields.filter((field) => field.signer === role);
}

/** What a signer agrees to before signing: the words are kept with the signature, by version. */
export const CONSENT_VERSION = 'esign-2026-11-29';

export function consentText(companyName: string, title: string): string {
  return [
    `I agree to sign "${title}" electronically. My electronic signature and the name I type count as my handwritten signature on this document.`,
    `This agreement covers this document only. ${companyName} keeps the signed document, and I can download a copy of it after signing.`,
    `I can ask ${companyName} for a paper copy of this document, or to sign it on paper instead, at no charge.`,
    'I can withdraw this agreement at any time before I sign by closing this page or declining; it does not undo a document I have already signed.',
    'To read and keep this document I need a device with a web browser that can open PDF files.',
  ].join('\n\n');
}
