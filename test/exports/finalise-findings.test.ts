/**
 * A packet makes a draft estimate final only once the claim's high findings (check_claim_readiness)
 * are confirmed by key: export_pdf answers 409 `findings_unconfirmed` naming them (over MCP, a
 * message to relay), a confirmation that is not exactly the findings now is refused, the link
 * carries the confirmation (signed), and POST, status and download ask again when the findings
 * changed since. The findings are printed nowhere in the PDF.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { components } from '../../sdk/src/schema';
import {
  as,
  companyDate,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { draftKitchenEstimate } from '../support/estimates';
import { callTool, connectMcp, problemOf } from '../support/mcp';

type Schemas = components['schemas'];
type PdfExport = Schemas['PdfExport'];
type PacketBuild = Schemas['PacketBuild'];
type Problem = Schemas['Problem'];
type Finding = Schemas['ReadinessFinding'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let scratch: string;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
  other = await createCompany(t, { credits: 5 });
  scratch = await mkdtemp(path.join(tmpdir(), 'finalise-findings-'));
});
afterAll(async () => {
  await t?.close();
  await rm(scratch, { recursive: true, force: true });
});

const write = (company = co) => as(t, company.writeKey);
const read = (company = co) => as(t, company.readKey);

function local(url: string): string {
  const link = new URL(url);
  return `${t.url}${link.pathname}${link.search}`;
}

/** The documented key of a finding: `check:record type:record id, name or day`. */
const keyOf = (finding: Finding) =>
  `${finding.check}:${finding.record.type}:${finding.record.id ?? finding.record.name ?? finding.record.day}`;

async function highKeys(jobId: string): Promise<{ keys: string[]; messages: string[] }> {
  const findings = (await read().get(`/api/v1/jobs/${jobId}/claim-readiness`).expect(200)).body
    .findings as Finding[];
  const high = findings.filter((finding) => finding.severity === 'high');
  return { keys: high.map(keyOf), messages: high.map((finding) => finding.message) };
}

/**
 * A job with a draft estimate and a drying log begun three days ago in Kitchen and Hall, read
 * only in Kitchen on day 1, dry: days 1 to 3 were monitored without (all) readings (Hall is not
 * read dry), three high findings.
 */
async function jobWithFindings(
  { log = true } = {},
  company = co,
): Promise<{ id: string; job_number: number; estimateId: string }> {
  const job = (
    await write(company)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Dana Reyes', title: 'Dishwasher leak' })
      .expect(201)
  ).body;
  const estimate = await draftKitchenEstimate(t, company.writeKey, job.id);
  if (log) {
    await startLog(job.id, company);
    await readDay(job.id, 1, 'Kitchen', company);
  }
  return { ...job, estimateId: estimate.id };
}

async function startLog(jobId: string, company = co): Promise<void> {
  await write(company)
    .post(`/api/v1/jobs/${jobId}/drying-log`)
    .send({
      operation_id: opId(),
      start_date: companyDate(company, -3),
      rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
    })
    .expect(201);
}

/** Reads the area's drywall on the day: dry (9, under its goal) unless told the value. */
async function readDay(jobId: string, day: number, area: string, company = co, value = 9): Promise<void> {
  await write(company)
    .post(`/api/v1/jobs/${jobId}/drying-log/readings`)
    .send({ operation_id: opId(), day, area, readings: [{ metric: 'drywall', value }] })
    .expect(201);
}

const exportUrl = (jobId: string, keys: string[] = [], documents = ['estimate', 'drying_log']) =>
  `/api/v1/jobs/${jobId}/export-pdf?${[
    ...documents.map((document) => `documents=${document}`),
    ...keys.map((key) => `confirm_findings=${encodeURIComponent(key)}`),
  ].join('&')}`;

const confirmQuery = (keys: string[]) =>
  keys.map((key) => `&confirm_findings=${encodeURIComponent(key)}`).join('');

const statusOf = async (estimateId: string): Promise<string> =>
  (await read().get(`/api/v1/estimates/${estimateId}`).expect(200)).body.status;

async function post(url: string): Promise<{ status: number; body: PacketBuild & Problem }> {
  const res = await fetch(url, { method: 'POST' });
  return { status: res.status, body: (await res.json()) as PacketBuild & Problem };
}

async function built(build: PacketBuild): Promise<PacketBuild> {
  while (build.state === 'queued' || build.state === 'building') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const res = await fetch(local(build.status_url));
    expect(res.status).toBe(200);
    build = (await res.json()) as PacketBuild;
  }
  expect(build).toMatchObject({ state: 'ready', error: null });
  return build;
}

/** Downloads the whole PDF and waits for its delivery (which finalises); answers its text. */
async function downloaded(build: PacketBuild): Promise<string> {
  const res = await fetch(local(build.download_url!));
  expect(res.status).toBe(200);
  const file = path.join(scratch, `${opId()}.pdf`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  for (let tries = 0; !build.delivered && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  expect(build.delivered).toBe(true);
  return execFileSync('pdftotext', ['-layout', file, '-']).toString();
}

describe('export_pdf', () => {
  it('refuses a packet that would finalise the estimate with unconfirmed high findings, naming them', async () => {
    const job = await jobWithFindings();
    const high = await highKeys(job.id);
    expect(high.keys).toEqual([
      'monitored_day_without_readings:day:1',
      'monitored_day_without_readings:day:2',
      'monitored_day_without_readings:day:3',
    ]);
    const res = await read().get(exportUrl(job.id)).expect(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 409, code: 'findings_unconfirmed' });
    expect(res.body.findings).toEqual(
      high.keys.map((key, i) => ({
        key,
        check: 'monitored_day_without_readings',
        message: high.messages[i],
      })),
    );
    // The detail is what an assistant tells the person: the estimate, each finding, how to go on.
    expect(res.body.detail).toContain('makes the estimate "Water mitigation" final');
    for (const message of high.messages) expect(res.body.detail).toContain(message);
    expect(res.body.detail).toContain(`confirm_findings naming each finding's key: ${high.keys.join(', ')}`);
    expect(await statusOf(job.estimateId)).toBe('draft');

    // A packet that finalises nothing needs no confirmation.
    await read()
      .get(exportUrl(job.id, [], ['drying_log']))
      .expect(200);
  });

  it('refuses a confirmation that is not exactly the findings now, saying what differs', async () => {
    const job = await jobWithFindings();
    const { keys, messages } = await highKeys(job.id);
    const partial = await read()
      .get(exportUrl(job.id, keys.slice(0, 2)))
      .expect(409);
    expect(partial.body.code).toBe('findings_unconfirmed');
    expect(partial.body.detail).toContain(`not confirmed: ${messages[2]}`);
    expect(partial.body.findings.map((finding: { key: string }) => finding.key)).toEqual(keys);

    const extra = await read()
      .get(exportUrl(job.id, [...keys, 'billed_past_dry:line:li_nothing']))
      .expect(409);
    expect(extra.body.detail).toContain('confirmed but not found now: billed_past_dry:line:li_nothing');

    const bad = await read()
      .get(exportUrl(job.id, ['']))
      .expect(400);
    expect(bad.body.errors[0].path).toMatch(/confirm_findings/);
    expect(await statusOf(job.estimateId)).toBe('draft');
  });

  it('with every finding confirmed gives a link that finalises on download, printing no finding', async () => {
    const job = await jobWithFindings();
    const { keys } = await highKeys(job.id);
    // In any order; a write key may ask too.
    const link: PdfExport = (
      await write()
        .get(exportUrl(job.id, [...keys].reverse()))
        .expect(200)
    ).body;
    expect(link.finalizes_estimate).toBe(true);
    expect(new URL(link.pdf_url).searchParams.get('cf')).toMatch(/^[\w-]{22}$/);
    const asked = await post(local(link.pdf_url));
    expect(asked.status).toBe(202);
    const text = await downloaded(await built(asked.body));
    expect(text).toContain('Final estimate');
    expect(text).not.toContain('no readings in');
    expect(text).not.toContain('reviewer');
    expect(await statusOf(job.estimateId)).toBe('final');
  });

  it('asks again when the findings changed after the link was made, and takes the confirmation on POST', async () => {
    const job = await jobWithFindings();
    const before = await highKeys(job.id);
    const link: PdfExport = (await read().get(exportUrl(job.id, before.keys)).expect(200)).body;
    // Day 1 is read in Hall too, still wet: that finding is fixed and another is found (Hall
    // above its goal on its last day read), so the confirmation no longer matches.
    await readDay(job.id, 1, 'Hall', co, 30);
    const now = await highKeys(job.id);
    expect(now.keys.slice(0, 2)).toEqual(before.keys.slice(1));
    expect(now.keys.slice(2)).toEqual([expect.stringMatching(/^not_dry_on_last_day:area:/)]);
    const refused = await post(local(link.pdf_url));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'findings_unconfirmed' });
    expect(refused.body.detail).toContain('The findings changed since they were confirmed.');
    expect(refused.body.findings!.map((finding) => finding.key)).toEqual(now.keys);

    // The same link with the findings now confirmed on the POST: its status and download carry it.
    const wrong = await post(local(link.pdf_url) + confirmQuery(before.keys));
    expect(wrong.status).toBe(409);
    const tooMany = await post(
      local(link.pdf_url) + confirmQuery(Array.from({ length: 101 }, (_, i) => `k${i}`)),
    );
    expect(tooMany.status).toBe(400);
    const asked = await post(local(link.pdf_url) + confirmQuery(now.keys));
    expect(asked.status).toBe(202);
    expect(new URL(asked.body.status_url).searchParams.get('cf')).not.toBe(
      new URL(link.pdf_url).searchParams.get('cf'),
    );
    const build = await built(asked.body);
    expect(await statusOf(job.estimateId)).toBe('draft');
    await downloaded(build);
    expect(await statusOf(job.estimateId)).toBe('final');
  });

  it('refuses status and download of a link made before the findings appeared, and finalises nothing', async () => {
    const job = await jobWithFindings({ log: false });
    expect((await highKeys(job.id)).keys).toEqual([]);
    const link: PdfExport = (
      await read()
        .get(exportUrl(job.id, [], ['estimate']))
        .expect(200)
    ).body;
    expect(new URL(link.pdf_url).searchParams.has('cf')).toBe(false);
    const asked = await post(local(link.pdf_url));
    expect(asked.status).toBe(202);
    const build = await built(asked.body);
    // The drying log begun three days ago and never read: days 1 to 3 are high findings now.
    await startLog(job.id);
    expect((await highKeys(job.id)).keys).toHaveLength(3);
    // The status answers the packet built anew, and once that is ready, the findings to confirm.
    let status = await fetch(local(build.status_url));
    for (let tries = 0; status.status === 200 && tries < 300; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await fetch(local(build.status_url));
    }
    expect(status.status).toBe(409);
    const problem = (await status.json()) as Problem;
    expect(problem.code).toBe('findings_unconfirmed');
    expect(problem.findings).toHaveLength(3);
    expect((await post(local(link.pdf_url))).status).toBe(409);
    // The file itself is refused too (the job changed, and the findings with it).
    expect((await fetch(local(build.download_url!))).status).toBe(409);
    expect(await statusOf(job.estimateId)).toBe('draft');
  });

  it('finalises through a confirmed link once every finding is fixed: nothing is left to confirm', async () => {
    const job = await jobWithFindings();
    const { keys } = await highKeys(job.id);
    const link: PdfExport = (await read().get(exportUrl(job.id, keys)).expect(200)).body;
    await readDay(job.id, 1, 'Hall');
    for (const day of [2, 3]) for (const area of ['Kitchen', 'Hall']) await readDay(job.id, day, area);
    expect((await highKeys(job.id)).keys).toEqual([]);
    const asked = await post(local(link.pdf_url));
    expect(asked.status).toBe(202);
    await downloaded(await built(asked.body));
    expect(await statusOf(job.estimateId)).toBe('final');
  });

  it("answers another company's job 404 whatever it confirms, and an altered confirmation 403", async () => {
    const job = await jobWithFindings();
    const { keys } = await highKeys(job.id);
    await read(other).get(exportUrl(job.id, keys)).expect(404);
    const link: PdfExport = (await read().get(exportUrl(job.id, keys)).expect(200)).body;
    const altered = new URL(local(link.pdf_url));
    altered.searchParams.set('cf', 'A'.repeat(22));
    const res = await post(altered.toString());
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('link_invalid');
    // The confirmation left out of the link: the signature no longer holds either.
    altered.searchParams.delete('cf');
    expect((await post(altered.toString())).status).toBe(403);
    expect(await statusOf(job.estimateId)).toBe('draft');
  });

  it('over MCP answers a message to relay, then the link once the person confirmed', async () => {
    const job = await jobWithFindings();
    const { keys, messages } = await highKeys(job.id);
    const client = await connectMcp(t, co.readKey);
    try {
      const refused = problemOf(
        await callTool(client, 'export_pdf', {
          job_id: job.job_number,
          documents: ['estimate', 'drying_log'],
        }),
      );
      expect(refused).toMatchObject({ status: 409, code: 'findings_unconfirmed' });
      for (const message of messages) expect(refused.detail).toContain(message);
      expect(refused.detail).toContain('Tell the person.');
      const answer = await callTool(client, 'export_pdf', {
        job_id: job.job_number,
        documents: ['estimate', 'drying_log'],
        confirm_findings: keys,
      });
      expect(answer.isError).toBeFalsy();
      expect((answer.structuredContent as PdfExport).finalizes_estimate).toBe(true);
    } finally {
      await client.close();
    }
  });
});
