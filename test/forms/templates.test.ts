/**
 * Form templates: kept through the admin API in versions that are never edited (a template that
 * does not hold together is a 422 naming each problem, another company's a 404), read by
 * assistants with list_form_templates over HTTP and MCP, the demo company's two, and what
 * request_signature builds a form from (templateVersion, jobFacts).
 */
import type { components } from '../../sdk/src/schema';
import { seedDemo } from '../../src/demo/seed';
import { documentHtml, fillJobFields } from '../../src/domain/forms/template-text';
import { jobFacts, templateVersion } from '../../src/domain/forms/templates';
import {
  ADMIN_TOKEN,
  as,
  companyDate,
  createCompany,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { MARIA, openJob } from '../support/jobs';
import { callTool, connectMcp, problemOf } from '../support/mcp';

type Template = components['schemas']['FormTemplate'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

const admin = () => ({
  post: (p: string) => t.http.post(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  get: (p: string) => t.http.get(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
});
const templatesOf = (company: TestCompany) => `/admin/v1/companies/${company.id}/form-templates`;

const AUTHORIZATION = {
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
    { key: 'signed_on', label: 'Date', type: 'date', required: true, signer: 'customer' },
  ],
  body: '# Work authorization\n\n{{job.customer_name}} asks {{job.company_name}} to dry {{job.loss_address}}.\n\nInitials: {{fill.initials_work}} Date: {{fill.signed_on}}\n',
};

async function createTemplate(company: TestCompany, body: Record<string, unknown>): Promise<Template> {
  return (await admin().post(templatesOf(company)).send(body).expect(201)).body;
}

const listed = async (company: TestCompany) =>
  (await admin().get(templatesOf(company)).expect(200)).body.data as Template[];

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

const ADMIN_TOOLS =
  'admin_create_form_template, admin_list_form_templates, admin_get_form_template, admin_publish_form_template_version, admin_archive_form_template';

describe(`${ADMIN_TOOLS}: a company keeps its paperwork in versions`, () => {
  it('creates version 1, publishes version 2 while 1 stays readable as it was, and archives', async () => {
    const made = await createTemplate(co, { ...AUTHORIZATION, name: '  Lifecycle  ' });
    expect(made).toEqual({
      id: expect.stringMatching(/^ftp_[0-9A-Za-z]+$/),
      name: 'Lifecycle',
      kind: 'work_authorization',
      version: 1,
      current_version: 1,
      body: AUTHORIZATION.body,
      fields: AUTHORIZATION.fields,
      signers: ['customer'],
      version_created_at: expect.any(String),
      archived_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(
      (
        await admin()
          .get(`${templatesOf(co)}/${made.id}`)
          .expect(200)
      ).body,
    ).toEqual(made);

    const second = (
      await admin()
        .post(`${templatesOf(co)}/${made.id}/versions`)
        .send({
          body: 'Version two for {{job.customer_name}}: {{fill.initials_work}} / {{fill.tech_initials}}',
          fields: [
            AUTHORIZATION.fields[0],
            {
              key: 'tech_initials',
              label: 'Technician',
              type: 'initials',
              required: false,
              signer: 'technician',
            },
          ],
          signers: ['customer', 'technician'],
        })
        .expect(201)
    ).body as Template;
    expect(second).toMatchObject({
      id: made.id,
      name: 'Lifecycle',
      version: 2,
      current_version: 2,
      signers: ['customer', 'technician'],
    });
    expect(Date.parse(second.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.updated_at));
    // Version 1 is kept as it was published: a form made from it keeps its text.
    expect(
      (
        await admin()
          .get(`${templatesOf(co)}/${made.id}?version=1`)
          .expect(200)
      ).body,
    ).toEqual({
      ...made,
      current_version: 2,
      updated_at: second.updated_at,
    });
    expect(
      (
        await admin()
          .get(`${templatesOf(co)}/${made.id}?version=2`)
          .expect(200)
      ).body,
    ).toEqual(second);
    expect(
      (
        await admin()
          .get(`${templatesOf(co)}/${made.id}?version=3`)
          .expect(404)
      ).body.code,
    ).toBe('not_found');
    await admin()
      .get(`${templatesOf(co)}/${made.id}?version=0`)
      .expect(400);
    await admin()
      .get(`${templatesOf(co)}/${made.id}?version=two`)
      .expect(400);
    expect((await templateVersion(t.db, co.id, made.id, 1)).body).toBe(AUTHORIZATION.body);

    const archived = (
      await admin()
        .post(`${templatesOf(co)}/${made.id}/archive`)
        .expect(200)
    ).body as Template;
    expect(archived).toMatchObject({ id: made.id, version: 2, archived_at: expect.any(String) });
    expect(
      (
        await admin()
          .post(`${templatesOf(co)}/${made.id}/archive`)
          .expect(200)
      ).body,
    ).toEqual(archived);
    const refused = await admin()
      .post(`${templatesOf(co)}/${made.id}/versions`)
      .send({
        body: 'Three {{fill.initials_work}}',
        fields: [AUTHORIZATION.fields[0]],
        signers: ['customer'],
      })
      .expect(409);
    expect(refused.body.code).toBe('invalid_state');
    // The admin still sees it and its versions; list_form_templates and request_signature no longer do.
    expect((await listed(co)).find((template) => template.id === made.id)).toEqual(archived);
    expect(
      (
        await admin()
          .get(`${templatesOf(co)}/${made.id}?version=1`)
          .expect(200)
      ).body.body,
    ).toBe(AUTHORIZATION.body);
    const forAssistants = (await as(t, co.readKey).get('/api/v1/form-templates').expect(200)).body
      .data as Template[];
    expect(forAssistants.map((template) => template.id)).not.toContain(made.id);
    await expect(templateVersion(t.db, co.id, made.id)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('publishes one version at a time: versions published at once are numbered one after the other', async () => {
    const made = await createTemplate(co, { ...AUTHORIZATION, name: 'Concurrent versions' });
    const publish = (n: number) =>
      admin()
        .post(`${templatesOf(co)}/${made.id}/versions`)
        .send({
          ...AUTHORIZATION,
          name: undefined,
          kind: undefined,
          body: `${AUTHORIZATION.body}\nRevision ${n}`,
        });
    const answers = await Promise.all([1, 2, 3].map(publish));
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201]);
    expect(answers.map((res) => res.body.version).sort()).toEqual([2, 3, 4]);
    expect(
      (
        await admin()
          .get(`${templatesOf(co)}/${made.id}`)
          .expect(200)
      ).body.current_version,
    ).toBe(4);
  });

  it('refuses a template that does not hold together with 422 naming each problem, and saves nothing', async () => {
    const before = await listed(co);
    const cases: [Record<string, unknown>, [string, RegExp][]][] = [
      [
        { body: 'For {{job.adjuster}}: {{fill.initials_work}} {{fill.signed_on}}' },
        [['/body/body', /^unknown placeholder \{\{job\.adjuster\}\}/]],
      ],
      [
        { body: '{{fill.initials_work}} {{fill.signed_on}} {{fill.witness}}' },
        [['/body/body', /^\{\{fill\.witness\}\} is not declared in fields/]],
      ],
      [{ body: 'Only {{fill.initials_work}}' }, [['/body/fields/1/key', /^is not used in the body/]]],
      [
        {
          fields: [{ ...AUTHORIZATION.fields[0], signer: 'technician' }, AUTHORIZATION.fields[1]],
        },
        [['/body/fields/0/signer', /^"technician" is not among the template's signers \(customer\)$/]],
      ],
      [
        {
          signers: ['technician'],
          fields: AUTHORIZATION.fields.map((f) => ({ ...f, signer: 'technician' })),
        },
        [['/body/signers', /^must include customer/]],
      ],
      [{ signers: ['customer', 'customer'] }, [['/body/signers/1', /is listed twice/]]],
      [
        { fields: [AUTHORIZATION.fields[0], AUTHORIZATION.fields[0], AUTHORIZATION.fields[1]] },
        [['/body/fields/1/key', /declared twice/]],
      ],
      [{ body: 'Code `{{fill.initials_work}}` {{fill.signed_on}}' }, [['/body/body', /inside code/]]],
      [
        { body: '{{fill.initials_work}} {{fill.signed_on}} {{ fill.initials_work }}' },
        [['/body/body', /^\{\{fill\.initials_work\}\} is placed more than once$/]],
      ],
      [
        { body: '{{job.carrier} {{fill.initials_work}} {{fill.signed_on}}' },
        [['/body/body', /without its closing/]],
      ],
      [
        { body: '{{job.nope}} {{fill.initials_work}}', signers: ['customer', 'office', 'office'] },
        [
          ['/body/body', /unknown placeholder/],
          ['/body/fields/1/key', /not used/],
          ['/body/signers/2', /listed twice/],
        ],
      ],
    ];
    for (const [change, problems] of cases) {
      const res = await admin()
        .post(templatesOf(co))
        .send({ ...AUTHORIZATION, name: 'Refused', ...change })
        .expect(422);
      expect(res.body.code).toBe('invalid_form_template');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(problems.map(([path]) => path));
      for (const [i, [, message]] of problems.entries()) expect(res.body.errors[i].message).toMatch(message);
    }
    expect(await listed(co)).toEqual(before);

    // A new version is checked the same way, and the current one stays.
    const made = await createTemplate(co, { ...AUTHORIZATION, name: 'Checked versions' });
    const res = await admin()
      .post(`${templatesOf(co)}/${made.id}/versions`)
      .send({ body: '{{fill.initials}}', fields: [], signers: ['customer'] })
      .expect(422);
    expect(res.body.errors).toEqual([
      {
        path: '/body/body',
        message: '{{fill.initials}} is not declared in fields (add a field with key "initials")',
      },
    ]);
    expect(
      (
        await admin()
          .get(`${templatesOf(co)}/${made.id}`)
          .expect(200)
      ).body,
    ).toEqual(made);
  });

  it('keeps one name to one template in use (any case); an archived one frees it; another company may have it', async () => {
    const first = await createTemplate(co, { ...AUTHORIZATION, name: 'Direction to pay' });
    const taken = await admin()
      .post(templatesOf(co))
      .send({ ...AUTHORIZATION, name: 'DIRECTION TO PAY ' })
      .expect(422);
    expect(taken.body.errors).toEqual([
      { path: '/body/name', message: `another template in use is named "DIRECTION TO PAY" (${first.id})` },
    ]);
    await createTemplate(other, { ...AUTHORIZATION, name: 'Direction to pay' });
    await admin()
      .post(`${templatesOf(co)}/${first.id}/archive`)
      .expect(200);
    await createTemplate(co, { ...AUTHORIZATION, name: 'Direction to pay' });
  });

  it('answers 400 naming each field of the wrong type, and saves nothing', async () => {
    const before = await listed(co);
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'waiver' }, '/body/kind'],
      [{ body: 42 }, '/body/body'],
      [{ body: '   ' }, '/body/body'],
      [{ body: 'x'.repeat(50_001) }, '/body/body'],
      [{ name: '' }, '/body/name'],
      [{ signers: [] }, '/body/signers'],
      [{ signers: ['adjuster'] }, '/body/signers/0'],
      [{ fields: [{ ...AUTHORIZATION.fields[0], type: 'signature' }] }, '/body/fields/0/type'],
      [{ fields: [{ ...AUTHORIZATION.fields[0], required: 'yes' }] }, '/body/fields/0/required'],
      [{ fields: [{ ...AUTHORIZATION.fields[0], key: 'Initials Work' }] }, '/body/fields/0/key'],
      [{ fields: [{ ...AUTHORIZATION.fields[0], colour: 'red' }] }, '/body/fields/0/colour'],
      [{ fields: 'initials' }, '/body/fields'],
      [{ version: 3 }, '/body/version'],
    ];
    for (const [change, path] of cases) {
      const res = await admin()
        .post(templatesOf(co))
        .send({ ...AUTHORIZATION, name: 'Wrong types', ...change })
        .expect(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const withoutBody = { ...AUTHORIZATION, name: 'Wrong types', body: undefined };
    expect((await admin().post(templatesOf(co)).send(withoutBody).expect(400)).body.errors[0].path).toBe(
      '/body/body',
    );
    expect(await listed(co)).toEqual(before);
  });

  it("answers 404 for another company's template and an unknown company, 400 for a bad id; needs the admin token", async () => {
    const theirs = await createTemplate(other, { ...AUTHORIZATION, name: 'Theirs' });
    const version = { body: AUTHORIZATION.body, fields: AUTHORIZATION.fields, signers: ['customer'] };
    for (const res of [
      await admin().get(`${templatesOf(co)}/${theirs.id}`),
      await admin().get(`${templatesOf(co)}/${theirs.id}?version=1`),
      await admin()
        .post(`${templatesOf(co)}/${theirs.id}/versions`)
        .send(version),
      await admin().post(`${templatesOf(co)}/${theirs.id}/archive`),
      await admin().get(`${templatesOf(co)}/ftp_unknown0000`),
      await admin().get('/admin/v1/companies/co_nope/form-templates'),
      await admin().post('/admin/v1/companies/co_nope/form-templates').send(AUTHORIZATION),
    ])
      expect([res.status, res.body.code]).toEqual([404, 'not_found']);
    // Theirs is untouched.
    expect(
      (
        await admin()
          .get(`${templatesOf(other)}/${theirs.id}`)
          .expect(200)
      ).body,
    ).toEqual(theirs);
    await expect(templateVersion(t.db, co.id, theirs.id)).rejects.toMatchObject({ status: 404 });

    await admin()
      .get(`${templatesOf(co)}/prg_5Tb8kQ2mLx0w`)
      .expect(400);
    await admin()
      .get(`${templatesOf(co)}/not-an-id`)
      .expect(400);
    // An API key, read or write, is no admin token.
    for (const key of [co.readKey, co.writeKey]) {
      await t.http.get(templatesOf(co)).set('Authorization', `Bearer ${key}`).expect(401);
      await t.http
        .post(templatesOf(co))
        .set('Authorization', `Bearer ${key}`)
        .send(AUTHORIZATION)
        .expect(401);
    }
  });
});

describe('list_form_templates: what an assistant reads', () => {
  it("lists the key's company's templates in use at their current version, over HTTP and MCP, with a read key", async () => {
    const company = await createCompany(t);
    const kept = await createTemplate(company, AUTHORIZATION);
    const gone = await createTemplate(company, { ...AUTHORIZATION, name: 'Old authorization' });
    await admin().post(`/admin/v1/companies/${company.id}/form-templates/${gone.id}/archive`).expect(200);
    const current = (
      await admin()
        .post(`/admin/v1/companies/${company.id}/form-templates/${kept.id}/versions`)
        .send({ ...AUTHORIZATION, name: undefined, kind: undefined, body: `${AUTHORIZATION.body}\nSecond.` })
        .expect(201)
    ).body as Template;
    const theirs = await createTemplate(other, { ...AUTHORIZATION, name: 'Not listed to others' });

    const answer = (await as(t, company.readKey).get('/api/v1/form-templates').expect(200)).body;
    expect(answer).toEqual({ data: [current], next_cursor: null });
    expect(answer.data[0]).toMatchObject({ version: 2, kind: 'work_authorization', signers: ['customer'] });
    const others = (await as(t, other.readKey).get('/api/v1/form-templates').expect(200)).body
      .data as Template[];
    expect(others.map((template) => template.id)).toContain(theirs.id);
    expect(others.map((template) => template.id)).not.toContain(kept.id);
    await t.http.get('/api/v1/form-templates').expect(401);
    await as(t, company.readKey).get('/api/v1/form-templates?limit=5').expect(400);

    const client = await connectMcp(t, company.readKey);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('list_form_templates');
      const result = await callTool(client, 'list_form_templates', {});
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ data: [current], next_cursor: null });
      expect(problemOf(await callTool(client, 'list_form_templates', { kind: 'other' }))).toMatchObject({
        status: 400,
        code: 'invalid_request',
      });
      // Administration is never an MCP tool.
      await expect(callTool(client, 'admin_list_form_templates', { company_id: company.id })).rejects.toThrow(
        /Unknown tool: admin_list_form_templates/,
      );
    } finally {
      await client.close();
    }
  });
});

describe('templateVersion and jobFacts: what request_signature makes a form from', () => {
  it("gives the job's facts as a signer reads them, in the company's timezone", async () => {
    const job = await openJob(t, co.writeKey, {
      ...MARIA,
      address_line1: '412 Birch Lane',
      city: 'Springfield',
      region: 'IL',
      postal_code: '62704',
      carrier: 'State Farm',
      claim_number: 'SF-26-118734',
      date_of_loss: '2026-03-14',
    });
    const [year, month, day] = companyDate(co).split('-').map(Number);
    const today = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'long' }).format(
      new Date(Date.UTC(year!, month! - 1, day!)),
    );
    expect(await jobFacts(t.db, co.id, job.id)).toEqual({
      customer_name: 'Maria Alvarez',
      loss_address: '412 Birch Lane, Springfield, IL 62704',
      carrier: 'State Farm',
      claim_number: 'SF-26-118734',
      date_of_loss: 'March 14, 2026',
      company_name: co.name,
      today,
      job_number: String(job.job_number),
    });
    const bare = await openJob(t, co.writeKey, {});
    expect(await jobFacts(t.db, co.id, bare.id)).toMatchObject({
      customer_name: '',
      loss_address: '',
      carrier: '',
      claim_number: '',
      date_of_loss: '',
    });
    await expect(jobFacts(t.db, other.id, job.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(jobFacts(t.db, co.id, 'job_unknown0000')).rejects.toMatchObject({ status: 404 });
  });

  it('gives the current version or the one asked for; an unknown version is a 404', async () => {
    const made = await createTemplate(co, { ...AUTHORIZATION, name: 'Versions for forms' });
    await admin()
      .post(`${templatesOf(co)}/${made.id}/versions`)
      .send({
        body: 'Second {{fill.x}}',
        fields: [{ ...AUTHORIZATION.fields[0], key: 'x' }],
        signers: ['customer'],
      })
      .expect(201);
    expect(await templateVersion(t.db, co.id, made.id)).toEqual({
      template_id: made.id,
      version: 2,
      name: 'Versions for forms',
      kind: 'work_authorization',
      body: 'Second {{fill.x}}',
      fields: [{ ...AUTHORIZATION.fields[0], key: 'x' }],
      signers: ['customer'],
    });
    expect(await templateVersion(t.db, co.id, made.id, 1)).toMatchObject({
      version: 1,
      body: AUTHORIZATION.body,
    });
    await expect(templateVersion(t.db, co.id, made.id, 3)).rejects.toMatchObject({ status: 404 });
    await expect(templateVersion(t.db, co.id, 'ftp_unknown0000')).rejects.toMatchObject({ status: 404 });
  });
});

describe('the demo company', () => {
  it('ships a work authorization and a certificate of completion that fill from its jobs', async () => {
    const demo = await seedDemo(t.db, t.config, t.media);
    const templates = (await as(t, demo.readKey).get('/api/v1/form-templates').expect(200)).body
      .data as Template[];
    expect(templates.map((template) => [template.name, template.kind, template.signers])).toEqual([
      ['Work authorization', 'work_authorization', ['customer']],
      ['Certificate of completion', 'certificate_of_completion', ['customer', 'technician']],
    ]);
    const [firstJob] = (await as(t, demo.readKey).get('/api/v1/jobs?limit=100').expect(200)).body.data.filter(
      (job: { customer_name: string }) => job.customer_name === 'Maria Alvarez',
    );
    const facts = await jobFacts(t.db, demo.companyId, firstJob.id);
    for (const template of templates) {
      const html = documentHtml(fillJobFields(template.body, facts));
      expect(html).toContain('Maria Alvarez');
      expect(html).toContain('412 Birch Lane, Springfield, IL 62704');
      expect(html).toContain('SF-26-118734');
      expect(html).not.toContain('{{');
      const fields = [...html.matchAll(/data-fill="(\w+)"/g)].map(([, key]) => key);
      expect(new Set(fields)).toEqual(new Set(template.fields.map((field) => field.key)));
    }
    const certificate = templates[1]!;
    expect(
      certificate.fields.filter((field) => field.signer === 'technician').map((field) => field.type),
    ).toEqual(['date', 'initials']);
  });
});
