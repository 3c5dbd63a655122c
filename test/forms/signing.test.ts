/**
 * The signing link's routes (request_signature's links): the page with its headers, the view,
 * Sign and Decline with every refusal (consent, fields, signatures, sizes, the document's hash,
 * cross-site POSTs), altered, expired and used links as pages and as problems, a page held open
 * for an hour, two signings at once, several signers, and what the feed and undo say after.
 */
import {
  ADMIN_TOKEN,
  as,
  atOnce,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { openJob } from '../support/jobs';
import {
  COMPLETION,
  createTemplate,
  download,
  emptyPadPng,
  hugePng,
  linkOf,
  linkPath,
  requestSignature,
  sign,
  signaturePng,
  STROKES,
  viewOf,
  type SignatureRequest,
} from '../support/signing';

let t: TestApp;
let co: TestCompany;
let workAuth: { id: string };
let completion: { id: string };

const JOB = {
  customer_name: 'Lena Fischer',
  customer_email: 'lena@example.com',
  address_line1: '412 Birch Lane',
};
const FIELDS = { initials_work: 'LF', pets: true };

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { name: 'Dry Right Restoration' });
  workAuth = await createTemplate(t, co);
  completion = await createTemplate(t, co, COMPLETION);
});
afterAll(() => t.close());

async function newForm(template = workAuth, body: Record<string, unknown> = {}): Promise<SignatureRequest> {
  const job = await openJob(t, co.writeKey, JOB);
  return requestSignature(t, co.writeKey, job.id, { template_id: template.id, ...body });
}

/** The link with one query parameter set to `value`. */
function altered(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

async function feedActions(
  jobId: string,
): Promise<{ action: string; data: Record<string, unknown>; summary: string }[]> {
  await feedSettled(t);
  const page = (await as(t, co.readKey).get('/api/v1/changes?limit=100&kind=forms').expect(200)).body;
  return page.data.filter((e: { job: { id: string } | null }) => e.job?.id === jobId);
}

describe('the signing page (request_signature links)', () => {
  it("serves the page with the upload page's headers, and records the first opening once", async () => {
    const form = await newForm();
    // A link preview's HEAD is not an opening.
    await t.http
      .head(linkPath(linkOf(form)))
      .set('Accept', 'text/html')
      .expect(200);
    expect((await t.db('job_form_signers').where({ form_id: form.form_id }).first()).opened_at).toBeNull();
    const page = await t.http
      .get(linkPath(linkOf(form)))
      .set('Accept', 'text/html')
      .set('User-Agent', 'Phone Browser 1.0')
      .expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = page.headers['content-security-policy'];
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain(`<script nonce="${nonce}">`);
    expect(page.text).toContain('Dry Right Restoration');
    expect(page.text).toContain(form.document_sha256);
    expect(page.text).toContain('Lena Fischer');

    const signer = await t.db('job_form_signers').where({ form_id: form.form_id }).first();
    expect(signer).toMatchObject({ state: 'opened', opened_user_agent: 'Phone Browser 1.0' });
    expect(signer.opened_at).toBeInstanceOf(Date);
    expect(signer.opened_ip).toEqual(expect.any(String));
    await t.http
      .get(linkPath(linkOf(form)))
      .set('Accept', 'text/html')
      .expect(200);
    const view = (await viewOf(t, linkOf(form)).expect(200)).body;
    expect(view).toMatchObject({ state: 'opened', form_state: 'opened' });
    const opened = (await feedActions(form.job_id)).filter((e) => e.action === 'form.opened');
    expect(opened).toHaveLength(1);
    expect(opened[0].summary).toBe(
      `Work authorization on #${form.job_number} opened by Lena Fischer (customer)`,
    );
  });

  it("answers the view as the contract's SigningView, with relative URLs carrying the link", async () => {
    const form = await newForm();
    const view = (await viewOf(t, linkOf(form)).expect(200)).body;
    const query = new URL(linkOf(form)).search;
    expect(view).toEqual({
      form_id: form.form_id,
      company_name: 'Dry Right Restoration',
      job_number: form.job_number,
      title: 'Work authorization',
      kind: 'work_authorization',
      template_version: 1,
      signer: { role: 'customer', name: 'Lena Fischer', email: 'lena@example.com', phone: null },
      document_html: expect.stringContaining('<span class="fill" data-fill="initials_work"></span>'),
      document_sha256: form.document_sha256,
      fields: [
        { key: 'initials_work', label: 'Initials, work authorized', type: 'initials', required: true },
        { key: 'pets', label: 'Pets in the home', type: 'checkbox', required: false },
      ],
      consent: { version: expect.any(String), text: expect.stringContaining('paper copy') },
      state: 'opened',
      form_state: 'opened',
      expires_at: form.expires_at,
      sign_url: `/sign/${form.form_id}/sign${query}`,
      decline_url: `/sign/${form.form_id}/decline${query}`,
      copy_url: `/sign/${form.form_id}/copy${query}`,
    });
    expect(view.consent.text).toContain('withdraw');
  });

  it("renders a template's <script> and javascript: link inert", async () => {
    const evil = await createTemplate(t, co, {
      name: 'Disclosure',
      kind: 'disclosure',
      signers: ['customer'],
      fields: [],
      body: 'Read <script>alert(1)</script> and [click](javascript:alert(2)) for {{job.customer_name}}.',
    });
    const form = await newForm(evil);
    const page = await t.http
      .get(linkPath(linkOf(form)))
      .set('Accept', 'text/html')
      .expect(200);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toMatch(/href="javascript:/i);
  });

  it('answers an altered link with 403 link_invalid, as a page and as a problem', async () => {
    const form = await newForm();
    const second = await newForm();
    const url = linkOf(form);
    const signature = new URL(url).searchParams.get('s')!;
    const changed = [
      altered(url, 's', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`),
      altered(url, 'g', 'office'),
      altered(url, 'g', 'boss'),
      altered(url, 'e', String(Number(new URL(url).searchParams.get('e')) + 3600)),
      // This form's link on another form's path.
      url.replace(form.form_id, second.form_id),
    ];
    for (const bad of changed) {
      const page = await t.http.get(linkPath(bad)).set('Accept', 'text/html').expect(403);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('This link does not work');
      expect(page.text).not.toMatch(/at .*\.ts:\d+/);
      expect((await viewOf(t, bad).expect(403)).body.code).toBe('link_invalid');
      const signing = await t.http.post(linkPath(bad, '/sign')).send({ consent: true });
      expect(signing.status).toBe(403);
      expect(signing.body.code).toBe('link_invalid');
    }
    expect(await t.db('job_form_signers').where({ form_id: second.form_id }).first('opened_at')).toEqual({
      opened_at: null,
    });
  });

  it('answers an expired link with 410 link_expired, and signs on a page held open for an hour', async () => {
    const form = await newForm(workAuth, { expires_in: 2 * 3600 });
    await t.http
      .get(linkPath(linkOf(form)))
      .set('Accept', 'text/html')
      .expect(200);
    const view = (await viewOf(t, linkOf(form)).expect(200)).body;
    // The service's clock moves on by an offset (it keeps running, so timers of the pool stay sane).
    const realNow = Date.now;
    let offset = 0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow.call(Date) + offset);
    try {
      // An hour later: the link is still valid, and the page signs.
      offset = 3600_000;
      const signed = await t.http.post(linkPath(linkOf(form), '/sign')).send({
        consent: true,
        typed_name: 'Lena Fischer',
        fields: FIELDS,
        signature: STROKES,
        document_sha256: view.document_sha256,
      });
      expect(signed.status).toBe(201);
      const late = await newForm(workAuth, { expires_in: 600 });
      offset += 1200_000;
      const page = await t.http
        .get(linkPath(linkOf(late)))
        .set('Accept', 'text/html')
        .expect(410);
      expect(page.text).toContain('This link has expired');
      expect((await viewOf(t, linkOf(late)).expect(410)).body.code).toBe('link_expired');
    } finally {
      clock.mockRestore();
    }
  });

  it('refuses to sign without consent, with bad fields, a bad or too large signature, or another document', async () => {
    const form = await newForm();
    const url = linkOf(form);
    const expectRefusal = async (overrides: Record<string, unknown>, status: number, code: string) => {
      const res = await sign(t, url, { fields: FIELDS, ...overrides });
      expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
      return res.body;
    };
    await expectRefusal({ consent: false }, 422, 'consent_required');
    await expectRefusal({ consent: 'yes' }, 422, 'consent_required');
    const fields = await expectRefusal({ fields: { pets: 'no', extra: 'x' } }, 422, 'fields_invalid');
    expect(fields.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/body/fields/extra',
      '/body/fields/initials_work',
      '/body/fields/pets',
    ]);
    await expectRefusal({ fields: { initials_work: 'ABCDEFGHIJKL' } }, 422, 'fields_invalid');
    await expectRefusal({ typed_name: '  ' }, 422, 'fields_invalid');
    await expectRefusal({ signature: { strokes: [], width: 300, height: 100 } }, 422, 'invalid_signature');
    await expectRefusal(
      {
        signature: {
          strokes: [
            [
              [10, 10],
              [400, 20],
            ],
          ],
          width: 300,
          height: 100,
        },
      },
      422,
      'invalid_signature',
    );
    await expectRefusal(
      { signature: { strokes: [[['a', 1]]], width: 300, height: 100 } },
      422,
      'invalid_signature',
    );
    await expectRefusal({ signature: { strokes: [[[1, 1]]] } }, 422, 'invalid_signature');
    await expectRefusal({ signature: 'my name' }, 422, 'invalid_signature');
    await expectRefusal(
      { signature: { png: Buffer.from('GIF89a not a png').toString('base64') } },
      422,
      'invalid_signature',
    );
    await expectRefusal({ signature: { png: await emptyPadPng() } }, 422, 'invalid_signature');
    const damaged = Buffer.concat([
      Buffer.from(await signaturePng(), 'base64').subarray(0, 60),
      Buffer.alloc(40),
    ]);
    await expectRefusal({ signature: { png: damaged.toString('base64') } }, 422, 'invalid_signature');
    await expectRefusal({ signature: { png: await hugePng() } }, 413, 'signature_too_large');
    await expectRefusal({ document_sha256: '0'.repeat(64) }, 409, 'document_changed');
    const signer = await t.db('job_form_signers').where({ form_id: form.form_id }).first();
    expect(signer).toMatchObject({ state: 'opened', signed_at: null, signature: null });
  });

  it("refuses a POST from another site's page (403 forbidden_origin)", async () => {
    const second = await newForm();
    const view = (await viewOf(t, linkOf(second)).expect(200)).body;
    const body = {
      consent: true,
      typed_name: 'Lena',
      fields: FIELDS,
      signature: STROKES,
      document_sha256: view.document_sha256,
    };
    const fromElsewhere = await t.http
      .post(linkPath(linkOf(second), '/sign'))
      .set('Origin', 'https://evil.example')
      .send(body)
      .expect(403);
    expect(fromElsewhere.body.code).toBe('forbidden_origin');
    const crossFetch = await t.http
      .post(linkPath(linkOf(second), '/decline'))
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ reason: 'no' })
      .expect(403);
    expect(crossFetch.body.code).toBe('forbidden_origin');
    expect((await t.db('job_form_signers').where({ form_id: second.form_id }).first()).state).toBe('opened');
  });

  it('signs once: the answer, the record, the feed, a used link (410), and undo refused', async () => {
    const form = await newForm();
    const url = linkOf(form);
    await t.http.get(linkPath(url)).set('Accept', 'text/html').expect(200);
    const png = await signaturePng();
    const res = await sign(t, url, { fields: FIELDS, typed_name: 'Lena M. Fischer', signature: { png } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      state: 'signed',
      signed_at: expect.any(String),
      form_state: 'signed',
      copy_url: `/sign/${form.form_id}/copy${new URL(url).search}`,
    });
    const signer = await t.db('job_form_signers').where({ form_id: form.form_id }).first();
    expect(signer).toMatchObject({
      state: 'signed',
      typed_name: 'Lena M. Fischer',
      field_values: FIELDS,
      signature: { png },
      consent_version: expect.any(String),
      consent_text: expect.stringContaining('paper copy'),
      signed_user_agent: expect.stringContaining('jms-test'),
    });
    const row = await t.db('job_forms').where({ id: form.form_id }).first();
    expect(row).toMatchObject({
      state: 'signed',
      signed_pdf_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    // The link is used: a page that says so, a problem to a program, and no second signature.
    const again = await sign(t, url, { fields: FIELDS });
    expect(again.status).toBe(410);
    const closed = await t.http.post(linkPath(url, '/sign')).send({ consent: true }).expect(410);
    expect(closed.body.code).toBe('form_closed');
    expect(closed.body.detail).toContain('You signed this form');
    const page = await t.http.get(linkPath(url)).set('Accept', 'text/html').expect(410);
    expect(page.text).toContain('This form can no longer be signed');
    expect(page.text).toContain('You signed this form on');
    // The signer's copy is still theirs, from the page that says the link is used.
    const copyHref = `/sign/${form.form_id}/copy${new URL(url).search}`.replace(/&/g, '&#38;');
    expect(page.text).toContain(`<a href="${copyHref}">Download your signed copy (PDF)</a>`);
    await t.http.post(linkPath(url, '/decline')).send({ reason: 'changed my mind' }).expect(410);

    const signed = (await feedActions(form.job_id)).filter((e) => e.action === 'form.signed');
    expect(signed).toHaveLength(1);
    expect(signed[0].data).toEqual({
      action: 'form.signed',
      form_id: form.form_id,
      signer_role: 'customer',
      signer_name: 'Lena Fischer',
      form_state: 'signed',
      document_id: row.signed_document_id,
      signed_pdf_sha256: row.signed_pdf_sha256,
      via: 'signing_page',
    });
    // A signed form is not taken back: undo of its request is refused, and the form stays.
    const undo = await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(409);
    expect(undo.body.code).toBe('undo_not_possible');
    expect((await t.db('job_forms').where({ id: form.form_id }).first()).state).toBe('signed');
  });

  it('signs once when two signings arrive at the same moment', async () => {
    const form = await newForm();
    const url = linkOf(form);
    const view = (await viewOf(t, url).expect(200)).body;
    const body = {
      consent: true,
      typed_name: 'Lena Fischer',
      fields: FIELDS,
      signature: STROKES,
      document_sha256: view.document_sha256,
    };
    // Four at once (two phones, a double tap): on PostgreSQL they run side by side.
    const names = ['Lena Fischer', 'L. Fischer', 'Lena', 'LF'];
    const answers = await atOnce(
      t,
      names.map((typed_name) => () => t.http.post(linkPath(url, '/sign')).send({ ...body, typed_name })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 410, 410, 410]);
    for (const refused of answers.filter((a) => a.status === 410))
      expect(refused.body.code).toBe('form_closed');
    const signer = await t.db('job_form_signers').where({ form_id: form.form_id }).first();
    expect(signer.typed_name).toBe(names[answers.findIndex((a) => a.status === 201)]);
    expect(await t.db('documents').where({ job_id: form.job_id })).toHaveLength(1);
    expect((await feedActions(form.job_id)).filter((e) => e.action === 'form.signed')).toHaveLength(1);
  });

  it('declines with a reason: the form is declined for everyone, and its links close', async () => {
    const form = await newForm(completion);
    const customer = linkOf(form, 'customer');
    const missing = await t.http.post(linkPath(customer, '/decline')).send({}).expect(422);
    expect(missing.body).toMatchObject({ code: 'fields_invalid', errors: [{ path: '/body/reason' }] });
    await t.http
      .post(linkPath(customer, '/decline'))
      .send({ reason: 'x'.repeat(1001) })
      .expect(422);
    const declined = await t.http
      .post(linkPath(customer, '/decline'))
      .send({ reason: 'The price is not agreed yet' })
      .expect(200);
    expect(declined.body).toEqual({ state: 'declined' });
    const technician = await sign(t, linkOf(form, 'technician'), { fields: { finished_on: '2026-11-20' } });
    expect(technician.status).toBe(410);
    expect(technician.body.detail).toContain('declined');
    const entries = await feedActions(form.job_id);
    expect(entries.find((e) => e.action === 'form.declined')?.data).toEqual({
      action: 'form.declined',
      form_id: form.form_id,
      signer_role: 'customer',
      signer_name: 'Lena Fischer',
      reason: 'The price is not agreed yet',
      via: 'signing_page',
    });
    expect((await t.db('job_forms').where({ id: form.form_id }).first()).state).toBe('declined');
    // The signer's decision stays on record: undo does not withdraw a declined form.
    const undo = await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(409);
    expect(undo.body.code).toBe('undo_not_possible');
  });

  it('is signed when every signer has: the copy waits (409) until then', async () => {
    const form = await newForm(completion);
    const customer = linkOf(form, 'customer');
    const first = await sign(t, customer, { fields: { satisfied: true } });
    expect(first.body).toMatchObject({ state: 'signed', form_state: 'opened' });
    const early = await t.http.get(linkPath(customer, '/copy')).expect(409);
    expect(early.body.code).toBe('invalid_state');
    // The technician's fields are theirs: the customer's are refused on their link.
    const wrong = await sign(t, linkOf(form, 'technician'), { fields: { satisfied: true } });
    expect(wrong.body.code).toBe('fields_invalid');
    expect(
      (await sign(t, linkOf(form, 'technician'), { fields: { finished_on: '2026-13-40' } })).body.code,
    ).toBe('fields_invalid');
    expect(
      (await sign(t, linkOf(form, 'technician'), { fields: { finished_on: '2026-11-20' } })).status,
    ).toBe(201);
    const last = await sign(t, linkOf(form, 'office'), { fields: { remarks: 'All good' } });
    expect(last.body).toMatchObject({ state: 'signed', form_state: 'signed' });
    const copy = await download(t, linkPath(customer, '/copy'));
    expect(copy.status).toBe(200);
    expect(copy.headers['content-type']).toBe('application/pdf');
    expect(copy.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const entries = (await feedActions(form.job_id)).filter((e) => e.action === 'form.signed');
    expect(entries.map((e) => e.data.form_state)).toEqual(['opened', 'opened', 'signed']);
  });

  it('stops working once the key that made it is revoked', async () => {
    const admin = (req: ReturnType<TestApp['http']['post']>) =>
      req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const created = (
      await admin(t.http.post(`/admin/v1/companies/${co.id}/keys`))
        .send({ person_id: co.people[2].id, scope: 'write' })
        .expect(201)
    ).body;
    const job = await openJob(t, created.key, JOB);
    const form = await requestSignature(t, created.key, job.id, { template_id: workAuth.id });
    await viewOf(t, linkOf(form)).expect(200);
    await t.http
      .delete(`/admin/v1/keys/${created.id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(204);
    const refused = await viewOf(t, linkOf(form)).expect(403);
    expect(refused.body.code).toBe('link_invalid');
    expect(refused.body.detail).toContain('revoked');
  });
});
