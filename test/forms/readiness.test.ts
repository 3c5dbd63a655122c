/**
 * check_claim_readiness with a program that asks for signed paperwork: `signed_work_authorization`
 * (a job with a drying log) and `certificate_of_completion` (a finished job), each found until a
 * form of its kind is signed through its link, and found again once that form is voided.
 */
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { openJob } from '../support/jobs';
import { callTool, connectMcp } from '../support/mcp';
import { createTemplate, requestSignature, signedForm } from '../support/form-records';
import type { components } from '../../sdk/src/schema';

type Finding = components['schemas']['ReadinessFinding'];

let t: TestApp;
let co: TestCompany;
let authorization: { id: string };
let certificate: { id: string };

const CARRIER = 'Prairie Mutual';
const admin = (path: string) => t.http.post(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  authorization = await createTemplate(t, co, { kind: 'work_authorization' });
  certificate = await createTemplate(t, co, { kind: 'certificate_of_completion' });
  await admin(`/admin/v1/companies/${co.id}/program-profiles`)
    .send({
      name: 'Prairie Mutual program',
      carriers: [CARRIER],
      rules: [{ kind: 'signed_work_authorization', severity: 'high' }, { kind: 'certificate_of_completion' }],
    })
    .expect(201);
});
afterAll(() => t?.close());

const formFindings = async (key: string, jobId: string): Promise<Finding[]> =>
  (
    (await as(t, key).get(`/api/v1/jobs/${jobId}/claim-readiness`).expect(200)).body.findings as Finding[]
  ).filter((finding) => finding.record.type === 'form');

async function programJob(company = co) {
  return openJob(t, company.writeKey, { customer_name: 'Rosa Alvarez', carrier: CARRIER });
}

async function startDrying(jobId: string) {
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${jobId}/drying-log`)
    .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
    .expect(201);
}

const moveTo = (jobId: string, status: string) =>
  as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/status`).send({ status }).expect(200);

describe('check_claim_readiness signed_work_authorization: drying work needs a signed work authorization', () => {
  it('finds a job with a drying log and none, names the form asked for, and is satisfied once it is signed', async () => {
    const job = await programJob();
    expect(await formFindings(co.readKey, job.id)).toEqual([]);
    await startDrying(job.id);
    const [missing] = await formFindings(co.readKey, job.id);
    expect(missing).toEqual({
      check: 'program_rule',
      rule: 'signed_work_authorization',
      profile: { id: expect.stringMatching(/^prg_/), name: 'Prairie Mutual program' },
      severity: 'high',
      record: { type: 'form', id: null, name: 'work_authorization', day: null, date: null },
      message: 'Prairie Mutual program: The job has a drying log but no signed work authorization.',
      fix: { tool: 'request_signature', how: expect.stringContaining('work authorization') },
    });
    const readiness = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/claim-readiness`).expect(200))
      .body;
    expect(readiness.ready).toBe(false);

    const asked = await requestSignature(t, co.writeKey, job.id, authorization.id);
    const [waiting] = await formFindings(co.readKey, job.id);
    expect(waiting.record).toMatchObject({ type: 'form', id: asked.form_id, name: 'work_authorization' });
    expect(waiting.message).toMatch(/The one asked for on .+ is sent\.$/);

    const signed = await signedForm(t, co.writeKey, job.id, authorization.id);
    expect(await formFindings(co.readKey, job.id)).toEqual([]);

    // A voided authorization no longer counts.
    await as(t, co.writeKey)
      .post(`/api/v1/forms/${signed.form_id}/void`)
      .send({ operation_id: opId(), reason: 'Signed by the tenant' })
      .expect(200);
    const [again] = await formFindings(co.readKey, job.id);
    expect(again).toMatchObject({ rule: 'signed_work_authorization', record: { id: asked.form_id } });
  });

  it('does not count a signed form of another kind, and is the same over MCP', async () => {
    const job = await programJob();
    await startDrying(job.id);
    await signedForm(t, co.writeKey, job.id, certificate.id);
    const reader = await connectMcp(t, co.readKey);
    try {
      const result = await callTool(reader, 'check_claim_readiness', { job_id: job.job_number });
      const findings = (result.structuredContent as { findings: Finding[] }).findings;
      expect(findings.filter((f) => f.record.type === 'form').map((f) => f.rule)).toEqual([
        'signed_work_authorization',
      ]);
    } finally {
      await reader.close();
    }
  });
});

describe('check_claim_readiness certificate_of_completion: a finished job needs a signed certificate', () => {
  it("finds a job in the board's last status with none, not one still under way or cancelled", async () => {
    const job = await programJob();
    await moveTo(job.id, 'Rebuild');
    expect(await formFindings(co.readKey, job.id)).toEqual([]);
    await moveTo(job.id, 'Closed');
    const [missing] = await formFindings(co.readKey, job.id);
    expect(missing).toMatchObject({
      rule: 'certificate_of_completion',
      severity: 'medium',
      record: { type: 'form', id: null, name: 'certificate_of_completion' },
      message: 'Prairie Mutual program: The job is Closed but no signed certificate of completion.',
      fix: { tool: 'request_signature' },
    });
    await signedForm(t, co.writeKey, job.id, certificate.id);
    expect(await formFindings(co.readKey, job.id)).toEqual([]);

    const cancelled = await programJob();
    await moveTo(cancelled.id, 'Closed');
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${cancelled.id}/cancel`)
      .send({ reason: 'Went elsewhere' })
      .expect(200);
    expect(await formFindings(co.readKey, cancelled.id)).toEqual([]);
  });

  it("takes the profile's own finished statuses, in any case", async () => {
    const company = await createCompany(t);
    const template = await createTemplate(t, company, { kind: 'certificate_of_completion' });
    await admin(`/admin/v1/companies/${company.id}/program-profiles`)
      .send({
        name: 'Invoicing counts',
        carriers: [CARRIER],
        rules: [{ kind: 'certificate_of_completion', severity: 'low', statuses: ['invoicing', 'Closed'] }],
      })
      .expect(201);
    const job = await programJob(company);
    await as(t, company.writeKey)
      .post(`/api/v1/jobs/${job.id}/status`)
      .send({ status: 'Invoicing' })
      .expect(200);
    const [missing] = await formFindings(company.readKey, job.id);
    expect(missing).toMatchObject({ rule: 'certificate_of_completion', severity: 'low' });
    await signedForm(t, company.writeKey, job.id, template.id);
    expect(await formFindings(company.readKey, job.id)).toEqual([]);
  });

  it('refuses a rule with wrong parameters, naming the field (422)', async () => {
    const company = await createCompany(t);
    const refused = await admin(`/admin/v1/companies/${company.id}/program-profiles`)
      .send({
        name: 'Broken',
        carriers: [],
        rules: [
          { kind: 'certificate_of_completion', statuses: [] },
          { kind: 'signed_work_authorization', statuses: ['Closed'] },
        ],
      })
      .expect(422);
    expect(refused.body.code).toBe('invalid_program_profile');
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/rules/0/statuses',
      '/body/rules/1/statuses',
    ]);
  });
});
