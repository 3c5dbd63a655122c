/**
 * Forms as the records tests need them: a template written through the admin API, a form asked
 * for with request_signature, and each signer's part done through their link as a browser does
 * it (open the page, read its view, POST the signature as a stroke list). Nothing is written to
 * the database by hand.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../sdk/src/schema';
import { ADMIN_TOKEN, as, opId, type TestApp, type TestCompany } from './app';

type Schemas = components['schemas'];
export type SignatureRequest = Schemas['SignatureRequest'];
export type JobForm = Schemas['JobForm'];
type FormKind = Schemas['FormKind'];
type SignerRole = Schemas['FormSignerRole'];

export interface TemplateFacts {
  kind?: FormKind;
  name?: string;
  signers?: SignerRole[];
}

/** A template of the kind for the company, with one field for each signer, through the admin API. */
export async function createTemplate(t: TestApp, co: TestCompany, facts: TemplateFacts = {}) {
  const kind = facts.kind ?? 'work_authorization';
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
  const created = await t.http
    .post(`/admin/v1/companies/${co.id}/form-templates`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ name: facts.name ?? `${kind} ${randomUUID().slice(0, 6)}`, kind, body, fields, signers })
    .expect(201);
  return created.body as { id: string; name: string; kind: FormKind; version: number };
}

/** request_signature over HTTP with the key, for the job's customer. */
export async function requestSignature(
  t: TestApp,
  key: string,
  jobId: string,
  templateId: string,
  extra: Record<string, unknown> = {},
): Promise<SignatureRequest> {
  return (
    await as(t, key)
      .post(`/api/v1/jobs/${jobId}/forms`)
      .send({ operation_id: opId(), template_id: templateId, ...extra })
      .expect(201)
  ).body;
}

/** A signer's link as path and query, so that the signing routes beside the page can be called with it. */
export function linkOf(form: SignatureRequest, role: SignerRole = 'customer') {
  const signer = form.signers.find((s) => s.role === role);
  if (!signer) throw new Error(`the form has no ${role} signer`);
  const url = new URL(signer.url);
  return { path: url.pathname, query: url.search.slice(1) };
}

/** A signature drawn with a finger: two strokes inside a 300 × 120 pad. */
export const SCRIBBLE = {
  strokes: [
    [
      [12, 80],
      [40, 30],
      [70, 90],
      [110, 25],
    ],
    [
      [140, 70],
      [200, 60],
      [260, 72],
    ],
  ],
  width: 300,
  height: 120,
};

/** Opens the signer's page (recording `opened`), reads its view, then signs as the page does; the POST's answer. */
export async function signAs(t: TestApp, form: SignatureRequest, role: SignerRole = 'customer') {
  const link = linkOf(form, role);
  await t.http.get(`${link.path}?${link.query}`).expect(200);
  const view = (
    await t.http.get(`${link.path}/view?${link.query}`).set('Accept', 'application/json').expect(200)
  ).body as { fields: { key: string; type: string }[]; document_sha256: string; signer: { name: string } };
  return t.http.post(`${link.path}/sign?${link.query}`).send({
    consent: true,
    typed_name: view.signer.name,
    fields: Object.fromEntries(
      view.fields.map((field) => [field.key, field.type === 'checkbox' ? true : fieldValue(field.type)]),
    ),
    signature: SCRIBBLE,
    document_sha256: view.document_sha256,
  });
}

function fieldValue(type: string): string {
  if (type === 'date') return new Date().toISOString().slice(0, 10);
  return type === 'initials' ? 'MA' : 'Yes';
}

/** Declines as the page does, with a reason. */
export async function declineAs(
  t: TestApp,
  form: SignatureRequest,
  reason: string,
  role: SignerRole = 'customer',
) {
  const link = linkOf(form, role);
  return t.http.post(`${link.path}/decline?${link.query}`).send({ reason });
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
