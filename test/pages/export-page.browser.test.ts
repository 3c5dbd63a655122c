/**
 * The packet's download page in a real browser at a phone's size: opening it changes nothing,
 * Download asks to confirm when the estimate would become final, then shows the build's progress,
 * downloads the built PDF (which holds the estimate's total) and says when all of it arrived, and
 * then the estimate is final and refuses changes. Expired and altered
 * links show their own page. Screenshots (and page 1 of the PDF as PNG) go to test/artifacts/.
 */
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { components } from '../../sdk/src/schema';
import { personLinkQuery } from '../../src/platform/person-links';
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
import { describeInBrowser, launchChromium, phoneContext } from '../support/browser';
import { jpegWith } from '../support/photo-files';

type PdfExport = components['schemas']['PdfExport'];
const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

describeInBrowser('the export download page on a phone', () => {
  let t: TestApp;
  let co: TestCompany;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const launching = launchChromium();
    launching.catch(() => undefined); // awaited below
    t = await startApp();
    browser = await launching;
    co = await createCompany(t);
    context = await phoneContext(browser, { acceptDownloads: true });
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const onTestServer = (url: string): string => {
    const u = new URL(url);
    return `${t.url}${u.pathname}${u.search}`;
  };

  async function jobWithEstimate(): Promise<{
    job: { id: string; job_number: number };
    estimate: { id: string; totals: { total_cents: number } };
  }> {
    const job = (
      await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Pat Phone', title: 'Burst pipe under sink' })
        .expect(201)
    ).body;
    const estimate = await draftKitchenEstimate(t, co.writeKey, job.id);
    // Enough photos that the page shows the build's progress for a while.
    const meta = {
      operation_id: opId(),
      room: 'Kitchen',
      photos: Array.from({ length: 12 }, (_, i) => (i === 0 ? { caption: 'Wet base cabinet' } : {})),
    };
    const upload = t.http
      .post(`/api/v1/jobs/${job.id}/photos`)
      .set('Authorization', `Bearer ${co.writeKey}`)
      .field('meta', JSON.stringify(meta));
    for (let i = 0; i < 12; i++)
      upload.attach('photo', await jpegWith({ width: 1600 + i, height: 1200 }), {
        filename: `p${i}.jpg`,
        contentType: 'image/jpeg',
      });
    await upload.expect(201);
    return { job, estimate };
  }

  const statusOf = async (id: string): Promise<string> =>
    (await as(t, co.readKey).get(`/api/v1/estimates/${id}`).expect(200)).body.status;
  const money = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

  it('opens without changing anything, confirms, downloads the PDF and makes the estimate final', async () => {
    const { job, estimate } = await jobWithEstimate();
    const link: PdfExport = (
      await as(t, co.readKey)
        .get(`/api/v1/jobs/${job.id}/export-pdf?documents=estimate&documents=photos`)
        .expect(200)
    ).body;
    const response = await page.goto(onTestServer(link.url));
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe(`PDF for job #${job.job_number}`);
    expect(await page.textContent('body')).toContain(money(estimate.totals.total_cents));
    expect(await page.textContent('#notice')).toContain('final');
    expect(await page.textContent('#readiness')).toContain('nothing a claim reviewer would question');
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page.png'), fullPage: true });
    expect(await statusOf(estimate.id)).toBe('draft');

    // Download first asks; Cancel leaves everything as it was.
    await page.getByRole('button', { name: 'Download PDF' }).click();
    await expect(page.getByRole('alertdialog').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-confirm.png'), fullPage: true });
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await statusOf(estimate.id)).toBe('draft');

    await page.getByRole('button', { name: 'Download PDF' }).click();
    const downloading = page.waitForEvent('download', { timeout: 60_000 });
    await page.getByRole('button', { name: /make it final and download/ }).click();
    // While it is built the page says how far it is.
    await page.waitForFunction(() =>
      /Waiting for its turn|Building the PDF/.test(document.getElementById('status')?.textContent ?? ''),
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-building.png'), fullPage: true });
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`job-${job.job_number}-packet.pdf`);
    const file = path.join(ARTIFACTS, 'export-packet.pdf');
    await download.saveAs(file);
    const text = execFileSync('pdftotext', ['-layout', file, '-']).toString();
    expect(text).toContain(money(estimate.totals.total_cents));
    expect(text).toContain('Wet base cabinet');
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      '50',
      '-f',
      '1',
      '-l',
      '3',
      file,
      path.join(ARTIFACTS, 'export-packet-page'),
    ]);
    await page.waitForSelector('#status.done');
    expect(await page.textContent('#notice')).toBe('The estimate is now final.');
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-done.png'), fullPage: true });

    expect(await statusOf(estimate.id)).toBe('final');
    const refused = await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimate.id}/line-items`)
      .send({
        operation_id: opId(),
        line_items: [{ description: 'More', unit: 'EA', quantity: 1, unit_price_cents: 100 }],
      });
    expect(refused.status).toBe(409);
  });

  it('shows what a claim reviewer would question before Download', async () => {
    const { job } = await jobWithEstimate();
    const write = as(t, co.writeKey);
    const log = `/api/v1/jobs/${job.id}/drying-log`;
    await write
      .post(log)
      .send({
        operation_id: opId(),
        start_date: companyDate(co, -3),
        rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
      })
      .expect(201);
    await write
      .post(`${log}/readings`)
      .send({ operation_id: opId(), day: 1, area: 'Kitchen', readings: [{ metric: 'drywall', value: 30 }] })
      .expect(201);
    await write.post(`${log}/skip-day`).send({ operation_id: opId(), day: 2 }).expect(201);
    const link: PdfExport = (
      await as(t, co.readKey)
        .get(`/api/v1/jobs/${job.id}/export-pdf?documents=drying_log&documents=photos`)
        .expect(200)
    ).body;
    await page.goto(onTestServer(link.url));
    const readiness = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/claim-readiness`).expect(200))
      .body as components['schemas']['ClaimReadiness'];
    expect(readiness.counts).toEqual({ high: 3, medium: 3, low: 1 });
    expect(await page.textContent('#readinesstitle')).toBe(
      'A claim reviewer would question (3 serious, 3 to look at, 1 minor)',
    );
    const items = await page.locator('ul.findings li').allTextContents();
    // The page lists the first six; the rest are counted.
    expect(items).toEqual(readiness.findings.slice(0, 6).map((f) => `${f.severity} ${f.message}`));
    expect(await page.textContent('#readiness p.more')).toContain('And 1 more');
    expect(items[0]).toMatch(/^high Day 1 .*no readings in Hall/);
    // The findings come before the button, which still works.
    expect(await page.getByRole('button', { name: 'Download PDF' }).isEnabled()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-findings.png'), fullPage: true });
  });

  it('warns before the estimate goes final with high findings, and asks to confirm them by name', async () => {
    const { job, estimate } = await jobWithEstimate();
    const write = as(t, co.writeKey);
    const log = `/api/v1/jobs/${job.id}/drying-log`;
    await write
      .post(log)
      .send({
        operation_id: opId(),
        start_date: companyDate(co, -3),
        rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
      })
      .expect(201);
    const readKitchen = (area: string) =>
      write
        .post(`${log}/readings`)
        .send({ operation_id: opId(), day: 1, area, readings: [{ metric: 'drywall', value: 30 }] })
        .expect(201);
    await readKitchen('Kitchen');
    await write
      .post(`${log}/skip-day`)
      .send({ operation_id: opId(), day: 2, reason: 'Owner away' })
      .expect(201);
    const high = async () =>
      (
        (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/claim-readiness`).expect(200)).body
          .findings as components['schemas']['ReadinessFinding'][]
      ).filter((finding) => finding.severity === 'high');
    // What each finding is about: a day, or an area by name.
    const about = (findings: components['schemas']['ReadinessFinding'][]) =>
      findings.map((f) => [f.check, f.record.type === 'day' ? f.record.day : f.record.name]);
    const before = await high();
    expect(about(before)).toEqual([
      ['monitored_day_without_readings', 1],
      ['monitored_day_without_readings', 3],
      ['not_dry_on_last_day', 'Kitchen'],
    ]);
    const confirm = before.map(
      (f) =>
        `&confirm_findings=${encodeURIComponent(`${f.check}:${f.record.type}:${f.record.id ?? f.record.day}`)}`,
    );
    const link: PdfExport = (
      await as(t, co.readKey)
        .get(`/api/v1/jobs/${job.id}/export-pdf?documents=estimate&documents=drying_log${confirm.join('')}`)
        .expect(200)
    ).body;
    await page.goto(onTestServer(link.url));
    // The warning names each finding, above Download.
    const notice = await page.textContent('#notice');
    expect(notice).toContain('Not ready to go final.');
    for (const finding of before) expect(notice).toContain(finding.message);
    await page.locator('#notice').screenshot({ path: path.join(ARTIFACTS, 'export-page-final-warning.png') });
    await page.screenshot({
      path: path.join(ARTIFACTS, 'export-page-final-warning-page.png'),
      fullPage: true,
    });

    // Download asks to confirm the three findings by name; the button waits for the tick.
    await page.getByRole('button', { name: 'Download PDF' }).click();
    const dialog = page.getByRole('alertdialog');
    expect(await dialog.textContent()).toContain('with 3 serious findings a claim reviewer would question');
    expect(await page.locator('#confirmlist li').allTextContents()).toEqual(before.map((f) => f.message));
    const yes = page.getByRole('button', { name: 'Make it final anyway and download' });
    expect(await yes.isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-final-confirm.png'), fullPage: true });

    // Hall is read on day 1 meanwhile, wet: the page's confirmation no longer matches, and it asks again.
    await readKitchen('Hall');
    const now = await high();
    expect(about(now)).toEqual([
      ['monitored_day_without_readings', 3],
      ['not_dry_on_last_day', 'Kitchen'],
      ['not_dry_on_last_day', 'Hall'],
    ]);
    await page.getByLabel('I have read these findings').check();
    await yes.click();
    await page.waitForSelector('#confirmchanged:not([hidden])');
    expect(await page.locator('#confirmlist li').allTextContents()).toEqual(now.map((f) => f.message));
    expect(await page.locator('#warnlist li').allTextContents()).toEqual(now.map((f) => f.message));
    expect(await dialog.textContent()).toContain('with 3 serious findings a claim');
    expect(await yes.isDisabled()).toBe(true);
    expect(await statusOf(estimate.id)).toBe('draft');
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-final-reconfirm.png'), fullPage: true });

    await page.getByLabel('I have read these findings').check();
    const downloading = page.waitForEvent('download', { timeout: 60_000 });
    await yes.click();
    const download = await downloading;
    const file = path.join(ARTIFACTS, 'export-packet-findings.pdf');
    await download.saveAs(file);
    expect(execFileSync('pdftotext', ['-layout', file, '-']).toString()).not.toContain('no readings in');
    await page.waitForSelector('#status.done');
    expect(await page.textContent('#notice')).toBe('The estimate is now final.');
    expect(await statusOf(estimate.id)).toBe('final');
  });

  it('shows a clear page for an expired or altered link', async () => {
    const { job } = await jobWithEstimate();
    const link: PdfExport = (
      await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/export-pdf?documents=photos`).expect(200)
    ).body;
    const altered = onTestServer(link.url)
      .replace('documents', 'x')
      .replace(/d=photos/, 'd=estimate');
    const response = await page.goto(altered);
    expect(response?.status()).toBe(403);
    expect(await page.textContent('h1')).toBe('This link does not work');
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-bad-link.png'), fullPage: true });
    const keyId = (await as(t, co.readKey).get('/api/v1/context').expect(200)).body.key.id;
    const query = await personLinkQuery(
      t.media.links,
      {
        purpose: 'export_pdf',
        companyId: co.id,
        keyId,
        jobId: job.id,
        params: { d: 'photos', est: '' },
        expires: Math.floor(Date.now() / 1000) - 60,
      },
      ['d', 'est'],
    );
    const expired = await page.goto(`${t.url}/exports/${job.id}/packet?${query}`);
    expect(expired?.status()).toBe(410);
    expect(await page.textContent('h1')).toBe('This link has expired');
    await page.screenshot({ path: path.join(ARTIFACTS, 'export-page-expired.png'), fullPage: true });
  });
});
