/**
 * A job's forms once they exist: list_job_forms and void_form over HTTP and MCP, get_job's count
 * of forms by state, the feed and undo around a void, and the form.* webhook events. Forms are
 * asked for with request_signature and signed or declined through their links as a browser does
 * it (support/form-records.ts).
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
import { openJob, readJob } from '../support/jobs';
import { callTool, connectMcp, problemOf } from '../support/mcp';
import {
  createTemplate,
  declineAs,
  signerPath,
  requestSignature,
  signedForm,
  type JobForm,
} from '../support/form-records';
import { STROKES, type SignatureRequest } from '../support/signing';
import { startReceiver, until, type Receiver } from '../support/webhook-receiver';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let authorization: { id: string; name: string };

beforeAll(async () => {
  t = await startApp(
    { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SECONDS: '0.3,0.3,0.3', WEBHOOK_SWEEP_MS: '100' },
    { deliverWebhooks: true },
  );
  co = await createCompany(t);
  other = await createCompany(t);
  authorization = await createTemplate(t, co, { kind: 'work_authorization' });
});
afterAll(() => t?.close());

const CUSTOMER = { customer_name: 'Maria Alvarez', customer_phone: '(555) 201-3344' };
const forms = (key: string, jobId: string, query = '') =>
  as(t, key).get(`/api/v1/jobs/${jobId}/forms${query}`);
const voidForm = (key: string, formId: string, body: Record<string, unknown>) =>
  as(t, key).post(`/api/v1/forms/${formId}/void`).send(body);

/** The form as list_job_forms shows it now. */
async function listed(key: string, jobId: string, formId: string): Promise<JobForm> {
  const page = (await forms(key, jobId, '?limit=100').expect(200)).body as { data: JobForm[] };
  const form = page.data.find((f) => f.form_id === formId);
  if (!form) throw new Error(`${formId} is not listed`);
  return form;
}

describe('list_job_forms: each form with its state, signers and signed PDF', () => {
  let jobId: string;
  let sent: SignatureRequest;
  let opened: SignatureRequest;
  let signed: SignatureRequest;
  let declined: SignatureRequest;

  beforeAll(async () => {
    jobId = (await openJob(t, co.writeKey, CUSTOMER)).id;
    sent = await requestSignature(t, co.writeKey, jobId, authorization.id);
    opened = await requestSignature(t, co.writeKey, jobId, authorization.id);
    await t.http.get(signerPath(opened)).set('Accept', 'text/html').expect(200);
    signed = await signedForm(t, co.writeKey, jobId, authorization.id);
    declined = await requestSignature(t, co.writeKey, jobId, authorization.id);
    expect((await declineAs(t, declined, 'Not the owner of the house')).status).toBe(200);
  });

  it('lists the forms newest first with their states, who and when, to a read key', async () => {
    const page = (await forms(co.readKey, jobId).expect(200)).body as { data: JobForm[]; next_cursor: null };
    expect(page.data.map((f) => [f.form_id, f.state])).toEqual([
      [declined.form_id, 'declined'],
      [signed.form_id, 'signed'],
      [opened.form_id, 'opened'],
      [sent.form_id, 'sent'],
    ]);
    expect(page.next_cursor).toBeNull();
    const [declinedForm, signedOne, openedForm, sentForm] = page.data;
    expect(sentForm).toMatchObject({
      job_id: jobId,
      template_id: authorization.id,
      template_version: 1,
      title: authorization.name,
      kind: 'work_authorization',
      document_sha256: sent.document_sha256,
      signed_at: null,
      signed_pdf: null,
      voided: null,
      expires_at: sent.expires_at,
      requested_by: { id: co.people[0].id, name: co.people[0].name },
      signers: [{ role: 'customer', name: 'Maria Alvarez', state: 'sent', opened_at: null, signed_at: null }],
    });
    expect(openedForm.signers[0]).toMatchObject({
      state: 'opened',
      opened_at: expect.any(String),
      signed_at: null,
    });
    expect(declinedForm.signers[0]).toMatchObject({
      state: 'declined',
      declined_at: expect.any(String),
      decline_reason: 'Not the owner of the house',
    });
    expect(signedOne.signers[0]).toMatchObject({ state: 'signed', signed_at: expect.any(String) });
    expect(signedOne.signed_at).toEqual(signedOne.signers[0].signed_at);
  });

  it("names the signed PDF: a document of the job's Files tab, with the SHA-256 verify_form checks", async () => {
    const form = await listed(co.readKey, jobId, signed.form_id);
    expect(form.signed_pdf).toEqual({
      document_id: expect.stringMatching(/^doc_/),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const documents = (await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/documents`).expect(200)).body
      .data as {
      id: string;
    }[];
    expect(documents.map((d) => d.id)).toContain(form.signed_pdf!.document_id);
  });

  it('pages with next_cursor, narrows by state, and refuses a cursor it did not give out', async () => {
    const first = (await forms(co.readKey, jobId, '?limit=3').expect(200)).body;
    expect(first.data).toHaveLength(3);
    const second = (await forms(co.readKey, jobId, `?limit=3&cursor=${first.next_cursor}`).expect(200)).body;
    expect(second.data.map((f: JobForm) => f.form_id)).toEqual([sent.form_id]);
    expect(second.next_cursor).toBeNull();
    const onlySigned = (await forms(co.readKey, jobId, '?state=signed').expect(200)).body.data as JobForm[];
    expect(onlySigned.map((f) => f.form_id)).toEqual([signed.form_id]);
    expect((await forms(co.readKey, jobId, '?cursor=bm9wZQ').expect(400)).body.errors[0].path).toBe(
      '/query/cursor',
    );
    expect((await forms(co.readKey, jobId, '?state=finished').expect(400)).body.errors[0].path).toBe(
      '/query/state',
    );
  });

  it("answers 404 for another company's job as for an unknown one", async () => {
    const theirs = await openJob(t, other.writeKey, CUSTOMER);
    expect((await forms(co.readKey, theirs.id).expect(404)).body.code).toBe('not_found');
    await forms(co.readKey, 'job_doesNotExist1').expect(404);
  });

  it('shows a form whose links ran out as expired, in the list and in get_job', async () => {
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const form = await requestSignature(t, co.writeKey, job.id, authorization.id, { expires_in: 600 });
    // Ten minutes passing, as a clock cannot be moved: the links' end is put in the past.
    await t
      .db('job_forms')
      .where({ id: form.form_id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await listed(co.readKey, job.id, form.form_id)).state).toBe('expired');
    expect((await readJob(t, co.readKey, job.id)).forms).toMatchObject({ sent: 0, expired: 1 });
    expect((await forms(co.readKey, job.id, '?state=expired').expect(200)).body.data).toHaveLength(1);
  });

  it('is the same over MCP, by job number, and a job of another company is a 404 there too', async () => {
    const reader = await connectMcp(t, co.readKey);
    try {
      const job = await readJob(t, co.readKey, jobId);
      const result = await callTool(reader, 'list_job_forms', { job_id: job.job_number, limit: 2 });
      expect(result.isError).toBeFalsy();
      const answer = result.structuredContent as { data: JobForm[]; next_cursor: string };
      expect(answer.data.map((f) => f.form_id)).toEqual([declined.form_id, signed.form_id]);
      const theirs = await openJob(t, other.writeKey, CUSTOMER);
      expect(problemOf(await callTool(reader, 'list_job_forms', { job_id: theirs.id }))).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    } finally {
      await reader.close();
    }
  });
});

describe('get_job forms: the job counts its forms by state', () => {
  it('counts every state, zero on a job with none', async () => {
    const job = await openJob(t, co.writeKey, CUSTOMER);
    expect(job.forms).toEqual({ sent: 0, opened: 0, signed: 0, declined: 0, voided: 0, expired: 0 });
    await signedForm(t, co.writeKey, job.id, authorization.id);
    await signedForm(t, co.writeKey, job.id, authorization.id);
    const toVoid = await requestSignature(t, co.writeKey, job.id, authorization.id);
    await voidForm(co.writeKey, toVoid.form_id, { operation_id: opId(), reason: 'Wrong template' }).expect(
      200,
    );
    await requestSignature(t, co.writeKey, job.id, authorization.id);
    expect((await readJob(t, co.readKey, job.id)).forms).toEqual({
      sent: 1,
      opened: 0,
      signed: 2,
      declined: 0,
      voided: 1,
      expired: 0,
    });
  });
});

describe('void_form: a form is voided with its reason, never undone', () => {
  it('voids a signed form: kept whole with who, when and why; its links answer 410; the feed says so', async () => {
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const form = await signedForm(t, co.writeKey, job.id, authorization.id);
    const before = await listed(co.readKey, job.id, form.form_id);
    const body = { operation_id: opId(), reason: 'Signed by the tenant, not the owner' };
    const voided = (await voidForm(co.writeKey, form.form_id, body).expect(200)).body as JobForm;
    expect(voided).toEqual({
      ...before,
      state: 'voided',
      voided: {
        at: expect.any(String),
        by: { id: co.people[0].id, name: co.people[0].name },
        reason: body.reason,
      },
    });
    expect(await listed(co.readKey, job.id, form.form_id)).toEqual(voided);
    // The signed PDF stays on the Files tab.
    const documents = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/documents`).expect(200)).body.data;
    expect(documents.map((d: { id: string }) => d.id)).toContain(before.signed_pdf!.document_id);

    const view = await t.http.get(signerPath(form, '/view')).set('Accept', 'application/json').expect(410);
    expect(view.body.code).toBe('form_closed');
    const page = await t.http.get(signerPath(form)).set('Accept', 'text/html').expect(410);
    expect(page.headers['content-type']).toMatch(/text\/html/);

    await feedSettled(t);
    const entries = (await as(t, co.readKey).get('/api/v1/changes?kind=forms&limit=100').expect(200)).body
      .data;
    expect(entries.at(-1)).toMatchObject({
      kind: 'forms',
      action: 'form.voided',
      job: { id: job.id, job_number: job.job_number },
      person: { id: co.people[0].id },
      data: {
        action: 'form.voided',
        form_id: form.form_id,
        title: authorization.name,
        previous_state: 'signed',
        reason: body.reason,
      },
    });
  });

  it('voids a form nobody signed yet, after which its link cannot sign', async () => {
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const form = await requestSignature(t, co.writeKey, job.id, authorization.id);
    await voidForm(co.writeKey, form.form_id, {
      operation_id: opId(),
      reason: 'Sent to the wrong person',
    }).expect(200);
    // Opening the page answers 410: the signer is told the form is closed.
    await t.http.get(signerPath(form)).set('Accept', 'text/html').expect(410);
    const sign = await t.http.post(signerPath(form, '/sign')).send({
      consent: true,
      typed_name: 'Maria Alvarez',
      fields: { initials_customer: 'MA' },
      signature: STROKES,
      document_sha256: form.document_sha256,
    });
    expect(sign.status).toBe(410);
    expect(sign.body.code).toBe('form_closed');
    expect((await listed(co.readKey, job.id, form.form_id)).state).toBe('voided');
  });

  it('runs a void and a signature sent at once one after the other: the void names the state it found', async () => {
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const form = await requestSignature(t, co.writeKey, job.id, authorization.id);
    await t.http.get(signerPath(form)).set('Accept', 'text/html').expect(200);
    const [voided, signing] = await atOnce(t, [
      () => voidForm(co.writeKey, form.form_id, { operation_id: opId(), reason: 'Raced' }),
      () =>
        t.http.post(signerPath(form, '/sign')).send({
          consent: true,
          typed_name: 'Maria Alvarez',
          fields: { initials_customer: 'MA' },
          signature: STROKES,
          document_sha256: form.document_sha256,
        }),
    ]);
    expect(voided.status).toBe(200);
    const after = await listed(co.readKey, job.id, form.form_id);
    expect(after.state).toBe('voided');
    await feedSettled(t);
    const entry = (
      await as(t, co.readKey).get('/api/v1/changes?kind=forms&limit=100').expect(200)
    ).body.data.find(
      (e: { action: string; data: { form_id: string } }) =>
        e.action === 'form.voided' && e.data.form_id === form.form_id,
    );
    if (signing.status === 201) {
      // Signed first: the void found it signed, and the signed PDF is kept.
      expect(entry.data.previous_state).toBe('signed');
      expect(after.signed_pdf).not.toBeNull();
    } else {
      expect(signing.status).toBe(410);
      expect(signing.body.code).toBe('form_closed');
      expect(entry.data.previous_state).toBe('opened');
      expect(after.signed_pdf).toBeNull();
    }
  });

  it('answers a replay with the first answer, refuses other details under its operation_id, and a second void', async () => {
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const form = await requestSignature(t, co.writeKey, job.id, authorization.id);
    const body = { operation_id: opId(), reason: 'Duplicate request' };
    const first = await voidForm(co.writeKey, form.form_id, body).expect(200);
    const again = await voidForm(co.writeKey, form.form_id, body).expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const conflict = await voidForm(co.writeKey, form.form_id, { ...body, reason: 'Another reason' }).expect(
      409,
    );
    expect(conflict.body.code).toBe('operation_id_conflict');
    const twice = await voidForm(co.writeKey, form.form_id, { operation_id: opId(), reason: 'Again' }).expect(
      409,
    );
    expect(twice.body.code).toBe('invalid_state');
    expect(twice.body.detail).toContain('Duplicate request');
    await feedSettled(t);
    const voids = (
      await as(t, co.readKey).get('/api/v1/changes?kind=forms&limit=100').expect(200)
    ).body.data.filter(
      (e: { action: string; data: { form_id: string } }) =>
        e.action === 'form.voided' && e.data.form_id === form.form_id,
    );
    expect(voids).toHaveLength(1);
  });

  it('is not taken back by undo, which names it, and the request under it cannot be taken back either', async () => {
    const job = await openJob(t, co.otherWriteKey, CUSTOMER);
    const form = await requestSignature(t, co.otherWriteKey, job.id, authorization.id);
    await voidForm(co.otherWriteKey, form.form_id, { operation_id: opId(), reason: 'Scope changed' }).expect(
      200,
    );
    const refused = await as(t, co.otherWriteKey)
      .post('/api/v1/undo')
      .send({ operation_id: opId() })
      .expect(409);
    expect(refused.body.code).toBe('undo_not_possible');
    // The request is refused (the void changed the form since), and the void named as what undo never takes back.
    expect(refused.body.detail).toContain('cannot be undone: the record was changed since.');
    expect(refused.body.detail).toContain(
      `This key's last change, "Voided "${authorization.name}" on #${job.job_number} (sent): Scope changed"`,
    );
    expect(refused.body.detail).toContain('cannot be undone: a voided form stays voided');
    expect((await listed(co.readKey, job.id, form.form_id)).state).toBe('voided');
  });

  it("refuses a read key (403), another company's form or an unknown one (404), and bad bodies (400), saving nothing", async () => {
    const job = await openJob(t, co.writeKey, CUSTOMER);
    const form = await requestSignature(t, co.writeKey, job.id, authorization.id);
    const good = { operation_id: opId(), reason: 'Wrong job' };
    expect((await voidForm(co.readKey, form.form_id, good).expect(403)).body.code).toBe('write_key_required');

    const otherTemplate = await createTemplate(t, other);
    const otherJob = await openJob(t, other.writeKey, CUSTOMER);
    const theirs = await requestSignature(t, other.writeKey, otherJob.id, otherTemplate.id);
    expect((await voidForm(co.writeKey, theirs.form_id, good).expect(404)).body.code).toBe('not_found');
    await voidForm(co.writeKey, 'frm_doesNotExist1', good).expect(404);
    expect((await listed(other.readKey, otherJob.id, theirs.form_id)).state).toBe('sent');

    const badPath = async (body: Record<string, unknown>) =>
      (await voidForm(co.writeKey, form.form_id, body).expect(400)).body.errors[0].path;
    expect(await badPath({ operation_id: opId() })).toBe('/body/reason');
    expect(await badPath({ operation_id: opId(), reason: '' })).toBe('/body/reason');
    expect(await badPath({ operation_id: opId(), reason: 'x'.repeat(1001) })).toBe('/body/reason');
    expect(await badPath({ reason: 'No operation id' })).toBe('/body/operation_id');
    expect(await badPath({ ...good, operation_id: opId(), extra: true })).toBe('/body/extra');
    await voidForm(co.writeKey, 'not-a-form', good).expect(400);
    expect((await listed(co.readKey, job.id, form.form_id)).state).toBe('sent');
  });

  it("over MCP: voids with a write key, refuses a read key and another company's form", async () => {
    const writer = await connectMcp(t, co.writeKey);
    const reader = await connectMcp(t, co.readKey);
    try {
      const job = await openJob(t, co.writeKey, CUSTOMER);
      const form = await requestSignature(t, co.writeKey, job.id, authorization.id);
      const args = { form_id: form.form_id, operation_id: opId(), reason: 'Customer asked for paper' };
      expect(problemOf(await callTool(reader, 'void_form', args))).toMatchObject({
        status: 403,
        code: 'write_key_required',
      });
      const result = await callTool(writer, 'void_form', args);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ form_id: form.form_id, state: 'voided' });
      const otherTemplate = await createTemplate(t, other);
      const otherJob = await openJob(t, other.writeKey, CUSTOMER);
      const theirs = await requestSignature(t, other.writeKey, otherJob.id, otherTemplate.id);
      expect(
        problemOf(
          await callTool(writer, 'void_form', { ...args, form_id: theirs.form_id, operation_id: opId() }),
        ),
      ).toMatchObject({ status: 404, code: 'not_found' });
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});

describe('admin_create_webhook with form events: form.* actions are delivered', () => {
  const admin = (path: string) => t.http.post(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  it('delivers form.signed to an endpoint that asked for it, and every form entry to one that asked for forms', async () => {
    const company = await createCompany(t);
    const template = await createTemplate(t, company);
    const signedOnly = await startReceiver();
    const allForms = await startReceiver();
    receivers.push(signedOnly, allForms);
    const hooks = `/admin/v1/companies/${company.id}/webhooks`;
    await admin(hooks)
      .send({ url: signedOnly.url, events: ['form.signed'] })
      .expect(201);
    await admin(hooks)
      .send({ url: allForms.url, events: ['forms'] })
      .expect(201);
    expect(
      (
        await admin(hooks)
          .send({ url: allForms.url, events: ['form.stamped'] })
          .expect(400)
      ).body.code,
    ).toBe('invalid_request');

    const job = await openJob(t, company.writeKey, CUSTOMER);
    const form = await signedForm(t, company.writeKey, job.id, template.id);
    const declined = await requestSignature(t, company.writeKey, job.id, template.id);
    await declineAs(t, declined, 'Wants to read it with a lawyer');
    await voidForm(company.writeKey, declined.form_id, { operation_id: opId(), reason: 'Declined' }).expect(
      200,
    );

    const actions = (receiver: Receiver) =>
      receiver.received().map((d) => JSON.parse(d.body).action as string);
    await until('the form entries', () => actions(allForms).length >= 6);
    expect(actions(allForms)).toEqual([
      'form.requested',
      'form.opened',
      'form.signed',
      'form.requested',
      'form.declined',
      'form.voided',
    ]);
    await until('form.signed', () => signedOnly.received().length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [delivery] = signedOnly.received();
    expect(signedOnly.received()).toHaveLength(1);
    expect(JSON.parse(delivery.body)).toMatchObject({
      kind: 'forms',
      action: 'form.signed',
      job: { id: job.id },
      data: {
        action: 'form.signed',
        form_id: form.form_id,
        form_state: 'signed',
        document_id: expect.stringMatching(/^doc_/),
      },
    });
  });
});
