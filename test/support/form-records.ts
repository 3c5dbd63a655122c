/**
 * Forms as the records tests need them, on top of support/signing.ts: a template of a kind with a
 * required field for each signer, a form asked for with request_signature, and each signer's part
 * done through their link as a browser does it (open the page, which records `opened`, read its
 * view, fill the signer's fields, POST the signature as a stroke list). Nothing is written to the
 * database by hand.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../sdk/src/schema';
import type { TestApp, TestCompany } from './app';
import {
  createTemplate as writeTemplate,
  linkOf,
  linkPath,
  requestSignature as sendForSignature,
  sign,
  viewOf,
  type SignatureRequest,
} from './signing';

type Schemas = components['schemas'];
export type JobForm = Schemas['JobForm'];
type FormKind = Schemas['FormKind'];
type SignerRole = Schemas['FormSignerRole'];

export interface TemplateFacts {
  kind?: FormKind;
  name?: string;
  signers?: SignerRole[];
}

/** A template of the kind for the company, with one required initials field for each signer. */
export async function createTemplate(
  t: TestApp,
  co: TestCompany,
  facts: TemplateFacts = {},
): Promise<{ id: string; name: string }> {
  const kind = facts.kind ?? 'work_authorization';
  const name = facts.name ?? `${kind} ${randomUUID().slice(0, 6)}`;
  const signers = facts.signers ?? ['customer'];
  const fields = signers.map((signer) => ({
    key: `initials_${signer}`,
    label: `Initials of the ${signer}`,
    type: 'initials',
    required: true,
    signer,
  }));
  const body = [
    `# ${kind.replaceAll('_', ' ')}`,
    '',
    '{{job.customer_name}} asks {{job.company_name}} to work at {{job.loss_address}} (claim {{job.claim_number}}).',
    '',
    ...fields.map((field) => `${field.label}: {{fill.${field.key}}}`),
  ].join('\n');
  const template = await writeTemplate(t, co, { name, kind, body, fields, signers });
  return { id: template.id, name };
}

/** request_signature over HTTP with the key, for the job's customer. */
export function requestSignature(
  t: TestApp,
  key: string,
  jobId: string,
  templateId: string,
  extra: Record<string, unknown> = {},
): Promise<SignatureRequest> {
  return sendForSignature(t, key, jobId, { template_id: templateId, ...extra });
}

/** The signer's link as a path on the test's service, with `suffix` added to its path. */
export const signerPath = (form: SignatureRequest, suffix = '', role: SignerRole = 'customer'): string =>
  linkPath(linkOf(form, role), suffix);

/** Opens the signer's page (recording `opened`), then signs with their fields filled; the POST's answer. */
export async function signAs(t: TestApp, form: SignatureRequest, role: SignerRole = 'customer') {
  await t.http
    .get(signerPath(form, '', role))
    .set('Accept', 'text/html')
    .expect(200);
  const view = (await viewOf(t, linkOf(form, role))).body as { fields: { key: string; type: string }[] };
  const fields = Object.fromEntries(view.fields.map((field) => [field.key, fieldValue(field.type)]));
  return sign(t, linkOf(form, role), { fields });
}

function fieldValue(type: string): string | boolean {
  if (type === 'checkbox') return true;
  if (type === 'date') return new Date().toISOString().slice(0, 10);
  return type === 'initials' ? 'MA' : 'Yes';
}

/** Declines as the page does, with a reason. */
export function declineAs(t: TestApp, form: SignatureRequest, reason: string, role: SignerRole = 'customer') {
  return t.http.post(signerPath(form, '/decline', role)).send({ reason });
}

/** Every signer signs, each through their own link; the form is then signed and its PDF stored. */
export async function signedForm(
  t: TestApp,
  key: string,
  jobId: string,
  templateId: string,
): Promise<SignatureRequest> {
  const form = await requestSignature(t, key, jobId, templateId);
  for (const signer of form.signers) expect((await signAs(t, form, signer.role)).status).toBe(201);
  return form;
}
