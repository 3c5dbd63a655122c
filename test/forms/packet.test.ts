/**
 * export_pdf's `signed_forms`: the packet prints each signed form of the job (the document as
 * signed, its signatures, then its audit page), oldest first, and leaves out forms not signed and
 * voided ones. The PDF is read back with poppler's pdftotext and pdfinfo.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { components } from '../../sdk/src/schema';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { openJob } from '../support/jobs';
import { callTool, connectMcp, problemOf } from '../support/mcp';
import { createTemplate, requestSignature, signedForm } from '../support/form-records';
import { sign, signaturePng } from '../support/signing';

type PdfExport = components['schemas']['PdfExport'];
type PacketBuild = components['schemas']['PacketBuild'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let scratch: string;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { name: 'Birch Restoration' });
  other = await createCompany(t);
  scratch = await mkdtemp(path.join(tmpdir(), 'forms-packet-'));
});
afterAll(async () => {
  await t?.close();
  await rm(scratch, { recursive: true, force: true });
});

const CUSTOMER = {
  customer_name: 'Rosa Alvarez',
  customer_phone: '(217) 555-0143',
  claim_number: 'CLM-88412',
};

/** Links name the service's PUBLIC_URL; the test's service listens on a port of its own. */
const local = (url: string) => {
  const link = new URL(url);
  return `${t.url}${link.pathname}${link.search}`;
};

const exportPdf = async (jobId: string, query: string, key = co.readKey) =>
  (await as(t, key).get(`/api/v1/jobs/${jobId}/export-pdf?${query}`).expect(200)).body as PdfExport;

/** The packet as a program gets it: POST pdf_url, poll its status, GET the file; its text and page count. */
async function packetText(link: PdfExport): Promise<{ text: string; pages: number; pictures: number }> {
  const posted = await fetch(local(link.pdf_url), { method: 'POST' });
  expect(posted.status).toBe(202);
  let build = (await posted.json()) as PacketBuild;
  while (build.state === 'queued' || build.state === 'building') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  expect(build).toMatchObject({ state: 'ready', error: null });
  const res = await fetch(local(build.download_url!));
  expect(res.status).toBe(200);
  const file = path.join(scratch, `${opId()}.pdf`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  const info = execFileSync('pdfinfo', [file]).toString();
  return {
    text: execFileSync('pdftotext', [file, '-']).toString(),
    pages: Number(/Pages:\s+(\d+)/.exec(info)![1]),
    // `pdfimages -list` lists each picture (a line each, after two lines of heading).
    pictures: execFileSync('pdfimages', ['-list', file]).toString().trim().split('\n').length - 2,
  };
}

describe('export_pdf signed_forms: the signed forms in the packet', () => {
  it('prints each signed form with its audit page, oldest first, without forms unsigned or voided', async () => {
    const authorization = await createTemplate(t, co, {
      kind: 'work_authorization',
      name: 'Work authorization',
    });
    const certificate = await createTemplate(t, co, {
      kind: 'certificate_of_completion',
      name: 'Certificate of completion',
      signers: ['customer', 'technician'],
    });
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const first = await signedForm(t, co.writeKey, job.id, authorization.id);
    const second = await signedForm(t, co.writeKey, job.id, certificate.id);
    const voided = await signedForm(t, co.writeKey, job.id, authorization.id);
    await as(t, co.writeKey)
      .post(`/api/v1/forms/${voided.form_id}/void`)
      .send({ operation_id: opId(), reason: 'Signed twice' })
      .expect(200);
    const unsigned = await requestSignature(t, co.writeKey, job.id, authorization.id);
    // A signature sent as a PNG is printed as a picture.
    const drawn = await requestSignature(t, co.writeKey, job.id, authorization.id);
    const png = await sign(t, drawn.signers[0].url, {
      fields: { initials_customer: 'RA' },
      signature: { png: await signaturePng() },
    });
    expect(png.status).toBe(201);

    const link = await exportPdf(job.id, 'documents=signed_forms&documents=photos');
    expect(link).toMatchObject({
      documents: ['photos', 'signed_forms'],
      signed_form_count: 3,
      finalizes_estimate: false,
    });
    const page = await fetch(local(link.url));
    expect(await page.text()).toContain('The signed forms (3)');

    const { text, pages, pictures } = await packetText(link);
    // A cover, the photos' page, and per form its document page and its audit page.
    expect(pages).toBeGreaterThanOrEqual(8);
    // The job has no photos: the one picture is the PNG signature; strokes are drawn, not pictured.
    expect(pictures).toBe(1);
    const at = (needle: string) => text.indexOf(needle);
    expect(at('Signed forms')).toBeGreaterThan(0);
    for (const form of [first, second, drawn]) {
      expect(text).toContain(form.form_id);
      expect(text.replace(/\s+/g, '')).toContain(form.document_sha256);
    }
    expect(at(first.form_id)).toBeLessThan(at(second.form_id));
    expect(at(second.form_id)).toBeLessThan(at(drawn.form_id));
    expect(text).toContain('Audit trail');
    expect(text).toContain('Rosa Alvarez');
    expect(text).toContain('Signed electronically as "Rosa Alvarez"');
    // The certificate's technician signed too, under their own name.
    expect(text).toContain(`Technician: ${co.people[0].name}`);
    expect(text).not.toContain(voided.form_id);
    expect(text).not.toContain(unsigned.form_id);
  });

  it('answers 404 for a job with no signed form, and is the same over MCP', async () => {
    const template = await createTemplate(t, co);
    const job = await openJob(t, co.writeKey, CUSTOMER);
    await requestSignature(t, co.writeKey, job.id, template.id);
    const refused = await as(t, co.readKey)
      .get(`/api/v1/jobs/${job.id}/export-pdf?documents=signed_forms`)
      .expect(404);
    expect(refused.body.detail).toContain('no signed form');

    const reader = await connectMcp(t, co.readKey);
    try {
      expect(
        problemOf(await callTool(reader, 'export_pdf', { job_id: job.id, documents: ['signed_forms'] })),
      ).toMatchObject({
        status: 404,
        code: 'not_found',
      });
      await signedForm(t, co.writeKey, job.id, template.id);
      const result = await callTool(reader, 'export_pdf', {
        job_id: job.job_number,
        documents: ['signed_forms'],
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ documents: ['signed_forms'], signed_form_count: 1 });
    } finally {
      await reader.close();
    }
  });

  it("answers 404 for another company's job, and 400 for a document it does not know", async () => {
    const theirs = await openJob(t, other.writeKey, CUSTOMER);
    await as(t, co.readKey).get(`/api/v1/jobs/${theirs.id}/export-pdf?documents=signed_forms`).expect(404);
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const bad = await as(t, co.readKey)
      .get(`/api/v1/jobs/${job.id}/export-pdf?documents=signatures`)
      .expect(400);
    expect(bad.body.errors[0].path).toMatch(/^\/query\/documents/);
  });
});
