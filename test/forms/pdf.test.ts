/**
 * The signed form's PDF and verify_form: once the last signer signs, the PDF holds the document
 * as signed (its text, the signers' values, each signature, typed names) and an audit page (who,
 * contacts, the consent, link made, opened and signed, addresses, browsers, the link's id, the
 * template and its version, the document's SHA-256); it is a document of the job, and verify_form
 * says the stored PDF is the one signed and a tampered copy is not.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { as, createCompany, startApp, type TestApp, type TestCompany } from '../support/app';
import { openJob } from '../support/jobs';
import {
  COMPLETION,
  createTemplate,
  download,
  linkOf,
  linkPath,
  requestSignature,
  sign,
  signaturePng,
  viewOf,
  type SignatureRequest,
} from '../support/signing';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let dir: string;
let form: SignatureRequest;
let completionId: string;
let pdf: Buffer;
let text: string;

const JOB = {
  customer_name: 'Lena Fischer',
  customer_email: 'lena@example.com',
  customer_phone: '(555) 201-3344',
  address_line1: '412 Birch Lane',
  city: 'Springfield',
};

/** The PDF's text as pdftotext reads it, its pages split by form feeds, runs of spaces and line breaks as one space. */
async function pdfText(bytes: Buffer): Promise<string> {
  const file = path.join(dir, `${createHash('sha256').update(bytes).digest('hex')}.pdf`);
  await writeFile(file, bytes);
  return execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' })
    .split('\f')
    .map((page) => page.replace(/\s+/g, ' '))
    .join('\f');
}

const verify = (key: string, formId: string, body: Buffer, type = 'application/pdf') =>
  as(t, key).post(`/api/v1/forms/${formId}/verify`).set('Content-Type', type).send(body);

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { name: 'Dry Right Restoration' });
  other = await createCompany(t);
  dir = await mkdtemp(path.join(tmpdir(), 'form-pdf-test-'));
  completionId = (await createTemplate(t, co, COMPLETION)).id;
  const job = await openJob(t, co.writeKey, JOB);
  form = await requestSignature(t, co.writeKey, job.id, { template_id: completionId });
  // The customer opens and signs with a PNG from a phone; the technician and the office draw strokes.
  await t.http
    .get(linkPath(linkOf(form)))
    .set('Accept', 'text/html')
    .set('User-Agent', 'PhoneBrowser/18.0')
    .expect(200);
  const customer = await sign(
    t,
    linkOf(form),
    { fields: { satisfied: true }, signature: { png: await signaturePng() } },
    'PhoneBrowser/18.0',
  );
  expect(customer.status).toBe(201);
  expect((await sign(t, linkOf(form, 'technician'), { fields: { finished_on: '2026-11-20' } })).status).toBe(
    201,
  );
  expect(
    (
      await sign(t, linkOf(form, 'office'), {
        fields: { remarks: 'Walls dry to goal' },
        typed_name: 'Dana Brooks',
      })
    ).status,
  ).toBe(201);
  const copy = await download(t, linkPath(linkOf(form), '/copy'));
  expect(copy.status).toBe(200);
  pdf = copy.bytes;
  text = await pdfText(pdf);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await t.close();
});

describe('the signed PDF (request_signature, then every signer signs)', () => {
  it('prints the document as signed: its text, the values, and each signer with their typed name', () => {
    const [document] = text.split('\f');
    expect(document).toContain('Dry Right Restoration');
    expect(document).toContain('Certificate of completion');
    expect(document).toContain('412 Birch Lane');
    expect(document).toContain('Lena Fischer');
    expect(document).toContain('finished on 2026-11-20');
    expect(document).toContain('Satisfied: [x]');
    expect(document).toContain('Walls dry to goal');
    expect(document).toContain('Signed electronically as "Lena Fischer"');
    expect(document).toContain('Signed electronically as "Dana Brooks"');
    expect(document).toContain(`Customer: Lena Fischer`);
    expect(document).toContain(`Technician: ${co.people[0].name}`);
  });

  it('draws the signatures: the PNG as a picture, the strokes as vector paths', () => {
    const images = execFileSync(
      'pdfimages',
      ['-list', path.join(dir, `${createHash('sha256').update(pdf).digest('hex')}.pdf`)],
      {
        encoding: 'utf8',
      },
    );
    // A header of two lines, then one line per picture: the customer's PNG only.
    expect(images.trim().split('\n').length - 2).toBeGreaterThanOrEqual(1);
  });

  it('ends with the audit page: signers, contacts, consent, times, addresses, browsers, link ids, template and hash', async () => {
    const pages = text.split('\f').filter((page) => page.trim() !== '');
    const audit = pages.slice(1).join('\n');
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(audit).toContain('Audit trail');
    expect(audit).toContain(form.form_id);
    expect(audit).toContain(`${form.template_id}, version 1`);
    expect(audit).toContain(form.document_sha256);
    expect(audit).toContain('lena@example.com');
    expect(audit).toContain('(555) 201-3344');
    expect(audit).toContain('PhoneBrowser/18.0');
    expect(audit).toContain('paper copy');
    const signers = await t.db('job_form_signers').where({ form_id: form.form_id }).orderBy('created_at');
    for (const signer of signers) {
      expect(audit).toContain(signer.link_id);
      expect(audit).toContain(signer.signed_ip);
      expect(audit).toContain(new Date(signer.signed_at).toISOString().replace('T', ' ').slice(0, 19));
    }
    const customer = signers.find((s) => s.role === 'customer');
    expect(audit).toContain(new Date(customer.opened_at).toISOString().replace('T', ' ').slice(0, 19));
    const made = await t.db('job_forms').where({ id: form.form_id }).first('created_at');
    expect(audit).toContain(new Date(made.created_at).toISOString().replace('T', ' ').slice(0, 19));
  });

  it('is a document of the job, its SHA-256 kept on the form', async () => {
    const documents = (await as(t, co.readKey).get(`/api/v1/jobs/${form.job_id}/documents`).expect(200)).body
      .data;
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    expect(documents).toEqual([
      expect.objectContaining({
        name: 'Certificate of completion - signed.pdf',
        kind: 'pdf',
        format: 'pdf',
        sha256,
        uploaded_via: 'signed_form',
        uploaded_by: { id: co.people[0].id, name: co.people[0].name },
        page_count: expect.any(Number),
        readable: true,
      }),
    ]);
    const row = await t.db('job_forms').where({ id: form.form_id }).first();
    expect(row.signed_pdf_sha256).toBe(sha256);
    expect(row.signed_document_id).toBe(documents[0].id);
    // The Files tab's download is the same file, and verify_form says so.
    const stored = await download(
      t,
      new URL(documents[0].links.download).pathname + new URL(documents[0].links.download).search,
    );
    expect(stored.bytes.equals(pdf)).toBe(true);
    expect((await verify(co.readKey, form.form_id, stored.bytes).expect(200)).body.matches).toBe(true);
  });
});

describe('verify_form', () => {
  it('says the stored PDF is the one signed, and a tampered copy is not', async () => {
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    const good = await verify(co.readKey, form.form_id, pdf).expect(200);
    expect(good.body).toEqual({
      form_id: form.form_id,
      matches: true,
      sha256,
      signed_pdf_sha256: sha256,
      form_state: 'signed',
      signed_at: expect.any(String),
    });
    const tampered = Buffer.from(pdf);
    const at = tampered.indexOf('Lena Fischer');
    tampered.write('Lena Fishcer', at >= 0 ? at : tampered.length - 100);
    const bad = await verify(co.writeKey, form.form_id, tampered).expect(200);
    expect(bad.body).toMatchObject({ matches: false, signed_pdf_sha256: sha256 });
    expect(bad.body.sha256).toBe(createHash('sha256').update(tampered).digest('hex'));
    expect(bad.body.sha256).not.toBe(sha256);
  });

  it('answers false with no signed hash for a form not signed yet', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const unsigned = await requestSignature(t, co.writeKey, job.id, { template_id: completionId });
    await viewOf(t, linkOf(unsigned)).expect(200);
    const res = await verify(co.readKey, unsigned.form_id, pdf).expect(200);
    expect(res.body).toMatchObject({
      matches: false,
      signed_pdf_sha256: null,
      form_state: 'opened',
      signed_at: null,
    });
  });

  it("answers 404 for another company's form and an unknown one, 415 for a body that is not a PDF, 400 for none", async () => {
    const theirs = await verify(other.readKey, form.form_id, pdf).expect(404);
    const unknown = await verify(co.readKey, 'frm_doesNotExist1', pdf).expect(404);
    expect(theirs.body.code).toBe('not_found');
    expect(theirs.body.detail).toBe(unknown.body.detail);
    expect(
      (await verify(co.readKey, form.form_id, Buffer.from('{}'), 'application/json').expect(415)).body.code,
    ).toBe('unsupported_media_type');
    expect((await verify(co.readKey, 'form_1', pdf).expect(400)).body.code).toBe('invalid_request');
    expect((await verify(co.readKey, form.form_id, Buffer.alloc(0)).expect(400)).body.code).toBe(
      'invalid_request',
    );
    await t.http
      .post(`/api/v1/forms/${form.form_id}/verify`)
      .set('Content-Type', 'application/pdf')
      .send(pdf)
      .expect(401);
  });
});
