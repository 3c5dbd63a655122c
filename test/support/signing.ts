/**
 * Signed forms as tests need them: templates written through the admin API, forms sent through
 * request_signature, and a signer's requests through their link (the page's own routes), with
 * signatures drawn as strokes or PNGs.
 */
import sharp from 'sharp';
import type { Response } from 'supertest';
import type { components } from '../../sdk/src/schema';
import { ADMIN_TOKEN, as, opId, type TestApp, type TestCompany } from './app';

export type SignatureRequest = components['schemas']['SignatureRequest'];

export interface TemplateInput {
  name: string;
  kind: string;
  body: string;
  fields: { key: string; label: string; type: string; required: boolean; signer: string }[];
  signers: string[];
}

/** A customer-only work authorization, with an initials field and a checkbox. */
export const WORK_AUTHORIZATION: TemplateInput = {
  name: 'Work authorization',
  kind: 'work_authorization',
  signers: ['customer'],
  fields: [
    {
      key: 'initials_work',
      label: 'Initials, work authorized',
      type: 'initials',
      required: true,
      signer: 'customer',
    },
    { key: 'pets', label: 'Pets in the home', type: 'checkbox', required: false, signer: 'customer' },
  ],
  body: [
    '# Work authorization',
    '',
    '{{job.customer_name}} asks **{{job.company_name}}** to dry the loss at {{job.loss_address}} (job {{job.job_number}}), carrier {{job.carrier}}, claim {{job.claim_number}}.',
    '',
    '- Initials: {{fill.initials_work}}',
    '- Pets in the home: {{fill.pets}}',
  ].join('\n'),
};

/** A certificate of completion the customer, the technician and the office sign. */
export const COMPLETION: TemplateInput = {
  name: 'Certificate of completion',
  kind: 'certificate_of_completion',
  signers: ['customer', 'technician', 'office'],
  fields: [
    { key: 'finished_on', label: 'Date finished', type: 'date', required: true, signer: 'technician' },
    {
      key: 'satisfied',
      label: 'I am satisfied with the work',
      type: 'checkbox',
      required: true,
      signer: 'customer',
    },
    { key: 'remarks', label: 'Remarks', type: 'text', required: false, signer: 'office' },
  ],
  body: [
    '# Certificate of completion',
    '',
    'The drying of {{job.loss_address}} for {{job.customer_name}} finished on {{fill.finished_on}}.',
    '',
    'Satisfied: {{fill.satisfied}}. Office remarks: {{fill.remarks}}',
  ].join('\n'),
};

export async function createTemplate(
  t: TestApp,
  company: Pick<TestCompany, 'id'>,
  input: TemplateInput = WORK_AUTHORIZATION,
): Promise<{ id: string; version: number }> {
  const answer = await t.http
    .post(`/admin/v1/companies/${company.id}/form-templates`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send(input);
  if (answer.status !== 201)
    throw new Error(`template not made: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export async function requestSignature(
  t: TestApp,
  key: string,
  jobId: string,
  body: Record<string, unknown>,
): Promise<SignatureRequest> {
  const answer = await as(t, key)
    .post(`/api/v1/jobs/${jobId}/forms`)
    .send({ operation_id: opId(), ...body });
  if (answer.status !== 201)
    throw new Error(`form not sent: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** A link's path and query, with `suffix` added to the path (`/view`, `/sign`). */
export function linkPath(url: string, suffix = ''): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${suffix}${parsed.search}`;
}

/** The signer's role of a request's link. */
export function linkOf(form: SignatureRequest, role = 'customer'): string {
  const signer = form.signers.find((s) => s.role === role);
  if (!signer) throw new Error(`no ${role} signer`);
  return signer.url;
}

/** Two strokes of a drawn signature within a 300 × 100 pad. */
export const STROKES = {
  strokes: [
    [
      [12, 70],
      [40, 20],
      [70, 75],
      [95, 30],
    ],
    [
      [120, 60],
      [180, 58],
      [240, 64],
    ],
  ],
  width: 300,
  height: 100,
};

/** A signature drawn as a PNG (a dark curve on a transparent pad), base64. */
export async function signaturePng(): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"><path d="M10 70 C 60 0, 120 100, 290 30" stroke="#000" stroke-width="4" fill="none"/></svg>`;
  return (await sharp(Buffer.from(svg)).png().toBuffer()).toString('base64');
}

/** An empty pad as a PNG: colours vary, but every pixel is transparent, so nothing shows. */
export async function emptyPadPng(): Promise<string> {
  const width = 300;
  const height = 100;
  const pixels = Buffer.alloc(width * height * 4);
  for (let i = 0; i < pixels.length; i += 4) pixels[i] = i % 251;
  return (
    await sharp(pixels, { raw: { width, height, channels: 4 } })
      .png()
      .toBuffer()
  ).toString('base64');
}

/** A PNG of noise over 1 MB: no signature pad sends such a thing. */
export async function hugePng(): Promise<string> {
  const side = 540;
  const noise = Buffer.alloc(side * side * 4);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  return (
    await sharp(noise, { raw: { width: side, height: side, channels: 4 } })
      .png({ compressionLevel: 0 })
      .toBuffer()
  ).toString('base64');
}

/** The view a signer's link answers as JSON. */
export function viewOf(t: TestApp, url: string) {
  return t.http.get(linkPath(url, '/view')).set('Accept', 'application/json');
}

/** A complete signing for a signer, with `overrides` of its body. */
export async function sign(
  t: TestApp,
  url: string,
  overrides: Record<string, unknown> = {},
  userAgent = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) jms-test',
): Promise<Response> {
  const view = (await viewOf(t, url)).body;
  return t.http
    .post(linkPath(url, '/sign'))
    .set('User-Agent', userAgent)
    .send({
      consent: true,
      typed_name: view.signer?.name ?? 'Signer',
      fields: {},
      signature: STROKES,
      document_sha256: view.document_sha256,
      ...overrides,
    });
}

/** A GET whose body is kept as bytes (a PDF). */
export async function download(
  t: TestApp,
  path: string,
): Promise<{ status: number; headers: Record<string, string>; bytes: Buffer }> {
  const res = await t.http
    .get(path)
    .buffer(true)
    .parse((stream, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => done(null, Buffer.concat(chunks)));
    });
  return { status: res.status, headers: res.headers, bytes: res.body as Buffer };
}
