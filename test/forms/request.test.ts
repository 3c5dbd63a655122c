/**
 * request_signature over HTTP and MCP: the form as sent (signers, links, the job's fields frozen
 * into its text), the feed, undo withdrawing a form nobody signed, replays and conflicts, and
 * every refusal: a read key, another company's job, template, contact or teammate, bad inputs.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { components } from '../../sdk/src/schema';
import {
  ADMIN_TOKEN,
  as,
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
  COMPLETION,
  createTemplate,
  linkOf,
  linkPath,
  requestSignature,
  viewOf,
  WORK_AUTHORIZATION,
  type SignatureRequest,
} from '../support/signing';

type ChangeEntry = components['schemas']['ChangeEntry'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let workAuth: { id: string };
let completion: { id: string };
let theirTemplate: { id: string };

const JOB = {
  customer_name: 'Lena Fischer',
  customer_email: 'lena@example.com',
  customer_phone: '(555) 201-3344',
  address_line1: '412 Birch Lane',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62704',
  carrier: 'State Farm',
  claim_number: 'SF-22-118734',
};

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { name: 'Dry Right Restoration' });
  other = await createCompany(t);
  workAuth = await createTemplate(t, co);
  completion = await createTemplate(t, co, COMPLETION);
  theirTemplate = await createTemplate(t, other);
});
afterAll(() => t.close());

const formsOf = (jobId: string) => `/api/v1/jobs/${jobId}/forms`;

async function feedOf(company: TestCompany, jobId: string): Promise<ChangeEntry[]> {
  await feedSettled(t);
  const entries: ChangeEntry[] = [];
  for (let cursor = ''; ; ) {
    const page = (
      await as(t, company.readKey)
        .get(`/api/v1/changes?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200)
    ).body;
    if (page.data.length === 0) return entries.filter((entry) => entry.job?.id === jobId);
    entries.push(...page.data);
    cursor = page.next_cursor;
  }
}

describe('request_signature over HTTP', () => {
  it('answers 201 with the form and one link per signer, the job fields filled in and its hash', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const res = await as(t, co.writeKey)
      .post(formsOf(job.id))
      .send({ operation_id: opId(), template_id: workAuth.id })
      .expect(201);
    const form: SignatureRequest = res.body;
    const customer = (await readJob(t, co.readKey, job.id)).people.find((p) => p.role === 'customer')!;
    expect(form).toMatchObject({
      form_id: expect.stringMatching(/^frm_/),
      job_id: job.id,
      job_number: job.job_number,
      template_id: workAuth.id,
      template_version: 1,
      title: 'Work authorization',
      kind: 'work_authorization',
      state: 'sent',
      document_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      signers: [
        {
          role: 'customer',
          name: 'Lena Fischer',
          email: 'lena@example.com',
          phone: '(555) 201-3344',
          contact_id: customer.id,
          person_id: null,
          state: 'sent',
          url: expect.stringContaining(`/sign/${form.form_id}?`),
        },
      ],
    });
    // Seven days by default.
    const lifetime = Date.parse(form.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(7 * 86400_000);

    const view = (await viewOf(t, linkOf(form)).expect(200)).body;
    expect(view.document_sha256).toBe(form.document_sha256);
    expect(view.document_html).toContain('Lena Fischer');
    expect(view.document_html).toContain('412 Birch Lane');
    expect(view.document_html).toContain('SF-22-118734');
    expect(view.document_html).toContain('Dry Right Restoration');
    expect(view.document_html).toContain('data-fill="initials_work"');
    expect(view.fields.map((f: { key: string }) => f.key)).toEqual(['initials_work', 'pets']);
  });

  it('freezes the text: a later change to the job or a new template version leaves the form as sent', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const form = await requestSignature(t, co.writeKey, job.id, { template_id: workAuth.id });
    const before = (await viewOf(t, linkOf(form)).expect(200)).body;
    await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/overview`)
      .send({ operation_id: opId(), carrier: 'Allstate' })
      .expect(200);
    await t.http
      .post(`/admin/v1/companies/${co.id}/form-templates/${workAuth.id}/versions`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({
        body: `${WORK_AUTHORIZATION.body}\n\nVersion two.`,
        fields: WORK_AUTHORIZATION.fields,
        signers: ['customer'],
      })
      .expect(201);
    const after = (await viewOf(t, linkOf(form)).expect(200)).body;
    expect(after.document_html).toBe(before.document_html);
    expect(after.document_html).toContain('State Farm');
    expect(after.template_version).toBe(1);
    // A form sent now has the new version and the new carrier, and so another hash.
    const newer = await requestSignature(t, co.writeKey, job.id, { template_id: workAuth.id });
    expect(newer.template_version).toBe(2);
    expect(newer.document_sha256).not.toBe(form.document_sha256);
    const newerView = (await viewOf(t, linkOf(newer)).expect(200)).body;
    expect(newerView.document_html).toContain('Allstate');
  });

  it("signs with the customer, the technician (default: the key's person) and a named office teammate", async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const office = co.people[1];
    const form = await requestSignature(t, co.writeKey, job.id, {
      template_id: completion.id,
      office_id: office.id,
    });
    expect(form.signers.map((s) => [s.role, s.name, s.person_id])).toEqual([
      ['customer', 'Lena Fischer', null],
      ['technician', co.people[0].name, co.people[0].id],
      ['office', office.name, office.id],
    ]);
    // Each signer's link opens their own fields only.
    const technician = (await viewOf(t, linkOf(form, 'technician')).expect(200)).body;
    expect(technician.signer).toMatchObject({ role: 'technician', name: co.people[0].name });
    expect(technician.fields.map((f: { key: string }) => f.key)).toEqual(['finished_on']);
    const urls = new Set(form.signers.map((s) => s.url));
    expect(urls.size).toBe(3);
  });

  it('is for the contact named by contact_id, when they are on the job', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const added = (
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${job.id}/contacts`)
        .send({ operation_id: opId(), name: 'Priya Shah', email: 'priya@example.com', role: 'Tenant' })
        .expect(200)
    ).body;
    const form = await requestSignature(t, co.writeKey, job.id, {
      template_id: workAuth.id,
      contact_id: added.contact.id,
      expires_in: 3600,
    });
    expect(form.signers[0]).toMatchObject({
      name: 'Priya Shah',
      email: 'priya@example.com',
      contact_id: added.contact.id,
    });
    expect(Math.abs(Date.parse(form.expires_at) - (Date.now() + 3600_000))).toBeLessThan(60_000);
  });

  it('writes form.requested to the feed, and undo withdraws the form: its link then says so', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const form = await requestSignature(t, co.writeKey, job.id, { template_id: workAuth.id });
    // Opening the link does not stop undo: nobody has signed.
    await viewOf(t, linkOf(form)).expect(200);
    const entries = await feedOf(co, job.id);
    const requested = entries.find((e) => e.action === 'form.requested')!;
    expect(requested).toMatchObject({
      kind: 'forms',
      summary: `Work authorization sent for signature on #${job.job_number} to Lena Fischer by ${co.people[0].name}`,
      data: {
        action: 'form.requested',
        form_id: form.form_id,
        template_id: workAuth.id,
        template_version: form.template_version,
        title: 'Work authorization',
        kind: 'work_authorization',
        signers: [{ role: 'customer', name: 'Lena Fischer' }],
        expires_at: form.expires_at,
      },
    });
    expect(entries.find((e) => e.action === 'form.opened')?.data).toEqual({
      action: 'form.opened',
      form_id: form.form_id,
      signer_role: 'customer',
      signer_name: 'Lena Fischer',
      via: 'signing_page',
    });
    const undone = (await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200))
      .body;
    expect(undone.undone).toMatchObject({
      tool: 'request_signature',
      record: { type: 'form sent for signature', id: form.form_id },
      credits_refunded: 0,
    });
    expect(undone.undone.effect).toBe(
      `deleted form sent for signature 'Work authorization' on #${job.job_number}`,
    );
    const closed = await viewOf(t, linkOf(form)).expect(410);
    expect(closed.body).toMatchObject({ code: 'form_closed' });
    expect(closed.body.detail).toContain('withdrew');
    const page = await t.http
      .get(linkPath(linkOf(form)))
      .set('Accept', 'text/html')
      .expect(410);
    expect(page.text).toContain('This form can no longer be signed');
  });

  it('answers a replay with the first form, and a conflicting operation_id with 409', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const body = { operation_id: opId(), template_id: workAuth.id };
    const first = await as(t, co.writeKey).post(formsOf(job.id)).send(body).expect(201);
    const again = await as(t, co.writeKey).post(formsOf(job.id)).send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const conflict = await as(t, co.writeKey)
      .post(formsOf(job.id))
      .send({ ...body, template_id: completion.id })
      .expect(409);
    expect(conflict.body.code).toBe('operation_id_conflict');
    const count = await t.db('job_forms').where({ job_id: job.id }).count<{ count: string }[]>('id as count');
    expect(Number(count[0].count)).toBe(1);
  });

  it('refuses a read key (403) and saves nothing', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const res = await as(t, co.readKey)
      .post(formsOf(job.id))
      .send({ operation_id: opId(), template_id: workAuth.id })
      .expect(403);
    expect(res.body.code).toBe('write_key_required');
    expect(await t.db('job_forms').where({ job_id: job.id })).toEqual([]);
  });

  it("answers 404 for another company's job, template, contact or teammate, as for unknown ones", async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const theirJob = await openJob(t, other.writeKey, JOB);
    const theirCustomer = (await readJob(t, other.readKey, theirJob.id)).people[0];
    const send = (jobId: string, body: Record<string, unknown>) =>
      as(t, co.writeKey)
        .post(formsOf(jobId))
        .send({ operation_id: opId(), template_id: workAuth.id, ...body });

    expect((await send(theirJob.id, {}).expect(404)).body.code).toBe('not_found');
    expect((await send('job_doesNotExist1', {}).expect(404)).body.code).toBe('not_found');
    const template = await send(job.id, { template_id: theirTemplate.id }).expect(404);
    const unknownTemplate = await send(job.id, { template_id: 'ftp_doesNotExist1' }).expect(404);
    expect(template.body.code).toBe(unknownTemplate.body.code);
    expect(template.body.detail).toBe(unknownTemplate.body.detail);
    expect((await send(job.id, { contact_id: theirCustomer.id }).expect(404)).body.code).toBe('not_found');
    // A contact of the company on another of its jobs is not this job's.
    const otherJob = await openJob(t, co.writeKey, { customer_name: 'Noah Park' });
    const noah = (await readJob(t, co.readKey, otherJob.id)).people[0];
    expect((await send(job.id, { contact_id: noah.id }).expect(404)).body.code).toBe('not_found');
    const teammate = await send(job.id, {
      template_id: completion.id,
      technician_id: other.people[0].id,
    }).expect(404);
    expect(teammate.body.code).toBe('not_found');
    expect(await t.db('job_forms').where({ job_id: job.id })).toEqual([]);
    expect(await t.db('job_forms').where({ job_id: theirJob.id })).toEqual([]);
  });

  it('refuses a job without a customer (422), a teammate for a role the template lacks, and bad inputs (400)', async () => {
    const bare = await openJob(t, co.writeKey, { title: 'Warehouse roof' });
    const noCustomer = await as(t, co.writeKey)
      .post(formsOf(bare.id))
      .send({ operation_id: opId(), template_id: workAuth.id })
      .expect(422);
    expect(noCustomer.body.code).toBe('no_customer');

    const job = await openJob(t, co.writeKey, JOB);
    const send = (body: Record<string, unknown>) => as(t, co.writeKey).post(formsOf(job.id)).send(body);
    const unneeded = await send({
      operation_id: opId(),
      template_id: workAuth.id,
      technician_id: co.people[1].id,
    }).expect(400);
    expect(unneeded.body.errors).toEqual([
      { path: '/body/technician_id', message: 'the template has no technician signer (it needs: customer)' },
    ]);
    const cases: [Record<string, unknown>, string][] = [
      [{ template_id: workAuth.id }, '/body/operation_id'],
      [{ operation_id: opId() }, '/body/template_id'],
      [{ operation_id: opId(), template_id: 'tpl_1' }, '/body/template_id'],
      [{ operation_id: opId(), template_id: workAuth.id, expires_in: 60 }, '/body/expires_in'],
      [{ operation_id: opId(), template_id: workAuth.id, expires_in: 2592001 }, '/body/expires_in'],
      [{ operation_id: opId(), template_id: workAuth.id, contact_id: 42 }, '/body/contact_id'],
      [{ operation_id: opId(), template_id: workAuth.id, signer: 'me' }, '/body/signer'],
    ];
    for (const [body, path] of cases) {
      const res = await send(body).expect(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await t.db('job_forms').where({ job_id: job.id })).toEqual([]);
  });

  it('keeps the document hash as the SHA-256 of the filled Markdown', async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const form = await requestSignature(t, co.writeKey, job.id, { template_id: workAuth.id });
    const row = await t.db('job_forms').where({ id: form.form_id }).first('body', 'document_sha256');
    expect(createHash('sha256').update(row.body, 'utf8').digest('hex')).toBe(form.document_sha256);
    expect(row.body).toContain('{{fill.initials_work}}');
    expect(row.body).not.toContain('{{job.');
  });
});

describe('request_signature over MCP', () => {
  let writer: Client;
  let reader: Client;
  beforeAll(async () => {
    writer = await connectMcp(t, co.writeKey);
    reader = await connectMcp(t, co.readKey);
  });
  afterAll(async () => {
    await writer.close();
    await reader.close();
  });

  it("sends a form by job number and answers its links; replays; refuses another company's template", async () => {
    const job = await openJob(t, co.writeKey, JOB);
    const args = { job_id: job.job_number, operation_id: opId(), template_id: workAuth.id };
    const result = await callTool(writer, 'request_signature', args);
    expect(result.isError).toBeFalsy();
    const form = result.structuredContent as SignatureRequest;
    expect(form).toMatchObject({
      job_id: job.id,
      state: 'sent',
      signers: [{ role: 'customer', name: 'Lena Fischer' }],
    });
    await viewOf(t, linkOf(form)).expect(200);
    const again = await callTool(writer, 'request_signature', args);
    expect(again.structuredContent).toEqual(form);

    const refused = problemOf(
      await callTool(writer, 'request_signature', {
        job_id: job.id,
        operation_id: opId(),
        template_id: theirTemplate.id,
      }),
    );
    expect(refused.status).toBe(404);
  });

  it('is not offered to a read key, and refuses it when called', async () => {
    const tools = (await reader.listTools()).tools.map((tool) => tool.name);
    expect(tools).not.toContain('request_signature');
    const job = await openJob(t, co.writeKey, JOB);
    const refused = problemOf(
      await callTool(reader, 'request_signature', {
        job_id: job.id,
        operation_id: opId(),
        template_id: workAuth.id,
      }),
    );
    expect(refused).toMatchObject({ status: 403, code: 'write_key_required' });
  });

  it('does not offer verify_form, which takes a PDF', async () => {
    const tools = (await writer.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('request_signature');
    expect(tools).not.toContain('verify_form');
  });
});
