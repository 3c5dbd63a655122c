/**
 * The signing page (issue #44) in a real browser: Debian's Chromium, headless, driven by
 * playwright-core. A form is asked for over the API (request_signature) and its link opened at a
 * phone's size with touch, where the signature is drawn with touch events, and at a desktop's
 * size with the mouse. Nothing is signed without the consent ticked or the required fields; a
 * signer can decline with a reason; expired, used and altered links answer a page that says so;
 * a template holding a script and a javascript: link renders inert; the page carries the headers
 * of the other pages. The signed PDF's pages are rendered to PNG with pdftoppm and looked at as
 * pictures: ink where the signature is, and an audit page; the copy the signer downloads passes
 * verify_form and a tampered one fails it. The page also recovers from a dropped connection and a
 * lost answer, signs after being held open for an hour, signs once from two tabs, and offers the
 * copy once the last of several signers has signed. Screenshots go to test/artifacts/signing/.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page, Request as BrowserRequest, Response } from 'playwright-core';
import { signLinkQuery } from '../../src/domain/forms/sign-links';
import { as, createCompany, startApp, type TestApp, type TestCompany } from '../support/app';
import { describeInBrowser, launchChromium, phoneContext } from '../support/browser';
import { openJob } from '../support/jobs';
import {
  COMPLETION,
  createTemplate,
  download,
  linkOf,
  linkPath,
  requestSignature,
  sign,
  viewOf,
  WORK_AUTHORIZATION,
  type SignatureRequest,
} from '../support/signing';

const ARTIFACTS = path.join(__dirname, '..', 'artifacts', 'signing');
const PHONE_WIDTH = 390;
const DESKTOP = { width: 1280, height: 900 };

/** A template whose text tries to run a script and to link to javascript: (it must render inert). */
const HOSTILE = {
  name: 'Disclosure <b>bold</b>',
  kind: 'disclosure',
  signers: ['customer'],
  fields: [{ key: 'remarks', label: 'Remarks <i>x</i>', type: 'text', required: false, signer: 'customer' }],
  body: [
    '# Mold disclosure',
    '',
    '<script>window.__ran = "script"</script>',
    '',
    '<img src="x" onerror="window.__ran = \'img\'">',
    '',
    '[Read the terms](javascript:window.__ran="link")',
    '',
    'See [our site](https://example.com/terms).',
    '',
    '<a href="javascript:window.__ran=\'anchor\'">Click here</a>',
    '',
    'Remarks: {{fill.remarks}}',
  ].join('\n'),
};

const JOB = {
  customer_name: 'Lena Fischer',
  customer_email: 'lena@example.com',
  customer_phone: '(555) 201-3344',
  address_line1: '412 Birch Lane',
  city: 'Springfield',
};

describeInBrowser('the signing page in Chromium', () => {
  let t: TestApp;
  let co: TestCompany;
  let browser: Browser;
  let workAuth: { id: string };
  let hostile: { id: string };
  let completion: { id: string };
  /** What went wrong inside the pages: uncaught errors (console errors of refused requests aside). */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const launching = launchChromium();
    launching.catch(() => undefined); // awaited below; this only keeps a failed launch from being reported as unhandled meanwhile
    t = await startApp();
    browser = await launching;
    co = await createCompany(t, { name: 'Dry Right Restoration' });
    workAuth = await createTemplate(t, co, WORK_AUTHORIZATION);
    hostile = await createTemplate(t, co, HOSTILE);
    completion = await createTemplate(t, co, COMPLETION);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  async function newForm(template = workAuth): Promise<SignatureRequest> {
    const job = await openJob(t, co.writeKey, JOB);
    return requestSignature(t, co.writeKey, job.id, { template_id: template.id });
  }

  async function pageIn(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => {
      pageErrors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    return page;
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  /** The sign requests the page makes, as the service receives them. */
  function signRequests(page: Page): BrowserRequest[] {
    const seen: BrowserRequest[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/sign'))
        seen.push(request);
    });
    return seen;
  }

  /** Draws a wave across the pad with touch events, as a finger would (CDP's touch input). */
  async function drawWithTouch(page: Page): Promise<void> {
    const pad = page.locator('#pad');
    await pad.scrollIntoViewIfNeeded();
    const box = (await pad.boundingBox())!;
    const cdp = await page.context().newCDPSession(page);
    const at = (i: number) => ({
      x: box.x + box.width * (0.1 + i * 0.03),
      y: box.y + box.height * (0.5 - 0.3 * Math.sin(i / 3)),
    });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(0)] });
    for (let i = 1; i <= 25; i++)
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(i)] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    // A second stroke: a tap, as a dot over an i.
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(28)] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await cdp.detach();
  }

  /** Draws a zigzag across the pad with the mouse. */
  async function drawWithMouse(page: Page): Promise<void> {
    const pad = page.locator('#pad');
    await pad.scrollIntoViewIfNeeded();
    const box = (await pad.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.6);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++)
      await page.mouse.move(box.x + box.width * (0.1 + i * 0.04), box.y + box.height * (i % 2 ? 0.3 : 0.7), {
        steps: 2,
      });
    await page.mouse.up();
  }

  /** How many of the pad's pixels are inked. */
  const inkOnPad = (page: Page) =>
    page.locator('#pad').evaluate((canvas: HTMLCanvasElement) => {
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let inked = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
      return inked;
    });

  /** Nothing on the page is wider than the window, and the controls a finger uses are large. */
  async function expectPhoneFriendly(page: Page): Promise<void> {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE_WIDTH);
    for (const selector of ['#sign', '#clear', '#typed-name', 'label.check.big', '#decline-box summary']) {
      const box = (await page.locator(selector).boundingBox())!;
      expect({
        selector,
        tall: box.height >= 44,
        inside: box.x >= 0 && box.x + box.width <= PHONE_WIDTH,
      }).toEqual({ selector, tall: true, inside: true });
    }
    const consent = (await page.locator('#consent').boundingBox())!;
    expect(consent.width).toBeGreaterThanOrEqual(24);
  }

  /** The headers every link page has: a CSP whose nonce is the one on the page's script and style. */
  async function expectPageHeaders(response: Response): Promise<void> {
    const headers = response.headers();
    const csp = headers['content-security-policy'];
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['cache-control']).toBe('no-store');
    const html = await response.text();
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(html.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
  }

  /** Fills what the work authorization asks and ticks the consent; the signature is left to the caller. */
  async function fillIn(page: Page, typedName: string): Promise<void> {
    await page.getByLabel('I agree to sign this document electronically.').check();
    await page.getByLabel('Initials, work authorized').fill('lf');
    await page.getByLabel('Type your full name').fill(typedName);
  }

  /** The PDF's pages as PNGs (72 dpi: a pixel is a point), with each page's words and their boxes. */
  async function pdfPages(
    bytes: Buffer,
    name: string,
  ): Promise<{ png: string; words: Word[]; text: string }[]> {
    const file = path.join(ARTIFACTS, `${name}.pdf`);
    await writeFile(file, bytes);
    execFileSync('pdftoppm', ['-png', '-r', '72', file, path.join(ARTIFACTS, name)]);
    const xhtml = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
    return xhtml
      .split('<page ')
      .slice(1)
      .map((page, index, all) => {
        const words = [
          ...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g),
        ].map((m) => ({ x0: +m[1], y0: +m[2], x1: +m[3], y1: +m[4], text: unescapeXml(m[5]) }));
        return {
          png: path.join(
            ARTIFACTS,
            `${name}-${String(index + 1).padStart(String(all.length).length, '0')}.png`,
          ),
          words,
          text: words.map((w) => w.text).join(' '),
        };
      });
  }

  /** The dark pixels of a region of a page's picture, and how far they spread across it. */
  async function inkIn(png: string, region: { left: number; top: number; width: number; height: number }) {
    const { data, info } = await sharp(png)
      .extract({
        left: Math.round(region.left),
        top: Math.round(region.top),
        width: Math.round(region.width),
        height: Math.round(region.height),
      })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    let dark = 0;
    let minX = info.width;
    let maxX = -1;
    for (let i = 0; i < data.length; i++) {
      if (data[i] >= 100) continue;
      dark++;
      const x = i % info.width;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
    }
    return { dark, spread: maxX - minX };
  }

  it('signs at 390×844 with a finger: consent first, required fields, a drawn signature, then the signed copy', async () => {
    const form = await newForm();
    const context = await phoneContext(browser, { acceptDownloads: true });
    try {
      const page = await pageIn(context);
      const posted = signRequests(page);
      // Everything the page loads or sends stays on the service: no fonts, scripts or pictures from elsewhere.
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).origin !== new URL(t.url).origin) elsewhere.push(request.url());
      });
      const response = (await page.goto(linkOf(form)))!;
      expect(response.status()).toBe(200);
      await expectPageHeaders(response);
      const view = (await viewOf(t, linkOf(form)).expect(200)).body;

      // What the signer sees: the company, the job, the document with its fingerprint, the consent.
      expect(await page.locator('header .company').textContent()).toBe('Dry Right Restoration');
      expect(await page.locator('header h1').textContent()).toBe('Work authorization');
      expect(await page.locator('header .meta').textContent()).toBe(
        `Job #${form.job_number} · For Lena Fischer (Customer)`,
      );
      expect(await page.locator('#document').innerText()).toContain(
        'Lena Fischer asks Dry Right Restoration',
      );
      expect(await page.locator('#sha').textContent()).toBe(form.document_sha256);
      const consent = (await page.locator('.consent').innerText()).replace(/\s+/g, ' ');
      for (const paragraph of view.consent.text.split(/\n\s*\n/))
        expect(consent).toContain(paragraph.trim().replace(/\s+/g, ' '));
      await expectPhoneFriendly(page);
      await shot(page, 'phone-before');

      // Sign stays off until the consent is ticked, and off again when it is unticked.
      const signButton = page.getByRole('button', { name: 'Sign', exact: true });
      const consentBox = page.getByLabel('I agree to sign this document electronically.');
      expect(await signButton.isDisabled()).toBe(true);
      await page.evaluate(() => document.getElementById('sign')!.click());
      await consentBox.check();
      expect(await signButton.isEnabled()).toBe(true);
      await consentBox.uncheck();
      expect(await signButton.isDisabled()).toBe(true);
      // Even a button turned on by hand sends nothing without the consent: the page says what is missing.
      await page.evaluate(() => {
        const button = document.getElementById('sign') as HTMLButtonElement;
        button.disabled = false;
        button.click();
      });
      expect(await page.locator('#consent-err').textContent()).toBe(
        'Tick the box to agree to sign electronically.',
      );

      // With the consent ticked and nothing else, Sign names each thing missing and sends nothing.
      await consentBox.check();
      await signButton.click();
      expect(await page.locator('.err:visible').allTextContents()).toEqual([
        'Fill this in to go on.',
        'Type your full name.',
        'Draw your signature in the box.',
      ]);
      expect(
        await page.getByLabel('Initials, work authorized').evaluate((el) => el === document.activeElement),
      ).toBe(true);
      expect(posted).toHaveLength(0);

      // The initials appear in the document as they are typed; the signature is drawn with touch.
      await fillIn(page, 'Lena Fischer');
      expect(await page.locator('#document [data-fill="initials_work"]').textContent()).toBe('LF');
      await drawWithTouch(page);
      expect(await inkOnPad(page)).toBeGreaterThan(500);
      expect(await page.locator('#pad-err').isHidden()).toBe(true);
      await page.locator('#sign').scrollIntoViewIfNeeded();
      await shot(page, 'phone-filled');

      // The pad as the signer saw it (it is hidden once signed).
      const pad = await page.evaluate(() => {
        const canvas = document.getElementById('pad')!;
        return { width: canvas.clientWidth, height: canvas.clientHeight };
      });
      const answered = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().includes('/sign?'),
      );
      await signButton.click();
      expect((await answered).status()).toBe(201);
      await page.locator('#done-signed').waitFor();
      expect(posted).toHaveLength(1);
      const body = posted[0].postDataJSON();
      expect(body).toMatchObject({
        consent: true,
        typed_name: 'Lena Fischer',
        fields: { initials_work: 'LF', pets: false },
        document_sha256: form.document_sha256,
        signature: { width: pad.width, height: pad.height },
      });
      // Two strokes in the pad's CSS pixels: the wave, and the tap as a dot of two points.
      expect(body.signature.strokes).toHaveLength(2);
      expect(body.signature.strokes[0].length).toBeGreaterThan(10);
      expect(body.signature.strokes[1]).toHaveLength(2);
      for (const [x, y] of body.signature.strokes.flat()) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(pad.width);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(y).toBeLessThanOrEqual(pad.height);
      }
      // The page sent its own origin, never its address (the link is in it).
      expect(await posted[0].headerValue('origin')).toBe(new URL(t.url).origin);
      expect(await posted[0].headerValue('referer')).toBeNull();

      // Signed: said plainly, with the signed copy to download.
      expect(await page.locator('#done-signed h2').textContent()).toBe('Signed');
      expect(await page.locator('#form').isHidden()).toBe(true);
      const copyLink = page.getByRole('link', { name: 'Download your signed copy (PDF)' });
      await copyLink.waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        PHONE_WIDTH,
      );
      await shot(page, 'phone-after');
      expect(elsewhere).toEqual([]);
      const downloading = page.waitForEvent('download');
      await copyLink.click();
      const downloaded = await downloading;
      expect(downloaded.suggestedFilename()).toBe(`${form.form_id}-signed.pdf`);

      // The service agrees: the form is signed, and the link is used.
      expect((await viewOf(t, linkOf(form)).expect(410)).body.code).toBe('form_closed');
      const copy = await download(t, linkPath(linkOf(form), '/copy'));
      expect(copy.status).toBe(200);

      // The copy the signer downloaded is the one signed (verify_form); a copy changed by a byte is not.
      const received = await readFile((await downloaded.path())!);
      expect(received.equals(copy.bytes)).toBe(true);
      const verify = (pdf: Buffer) =>
        as(t, co.readKey)
          .post(`/api/v1/forms/${form.form_id}/verify`)
          .set('Content-Type', 'application/pdf')
          .send(pdf)
          .expect(200);
      expect((await verify(received)).body).toMatchObject({ matches: true, form_state: 'signed' });
      const tampered = Buffer.from(received);
      const at = tampered.indexOf('Lena Fischer');
      tampered.write('Lena Fishcer', at >= 0 ? at : tampered.length - 100);
      expect((await verify(tampered)).body).toMatchObject({ matches: false });

      // The PDF as pictures: the signature's ink between the signer's name and "Signed electronically",
      // spread across most of the box as the wave was across the pad; then the audit page.
      const pages = await pdfPages(copy.bytes, 'signed-phone');
      expect(pages.length).toBeGreaterThanOrEqual(2);
      const signedPage = pages.find((p) => /Signed electronically as/.test(p.text))!;
      expect(signedPage).toBeDefined();
      const label = signedPage.words.find(
        (w, i, all) => w.text === 'Customer:' && all[i + 1]?.text === 'Lena',
      )!;
      const under = signedPage.words.find((w) => w.text === 'Signed' && w.y0 > label.y1)!;
      const box = { left: label.x0, top: label.y1 + 1, width: 220, height: under.y0 - label.y1 - 4 };
      expect(box.height).toBeGreaterThan(30);
      const ink = await inkIn(signedPage.png, box);
      expect(ink.dark).toBeGreaterThan(150);
      expect(ink.spread).toBeGreaterThan(100);
      // The same band to the right of the box is blank paper: the ink is the signature's.
      expect((await inkIn(signedPage.png, { ...box, left: box.left + 260, width: 200 })).dark).toBe(0);
      const audit = pages.find((p) => p.text.startsWith('Audit trail'))!;
      expect(audit).toBeDefined();
      expect(pages.indexOf(audit)).toBeGreaterThan(pages.indexOf(signedPage));
      const auditText = audit.text;
      expect(auditText).toContain(form.document_sha256);
      expect(auditText).toContain('Lena Fischer');
      expect((await inkIn(audit.png, { left: 0, top: 0, width: 612, height: 792 })).dark).toBeGreaterThan(
        1000,
      );
    } finally {
      await context.close();
    }
  }, 120_000);

  it('signs at desktop size by keyboard and mouse, and Clear starts the signature again', async () => {
    const form = await newForm();
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
    try {
      const page = await pageIn(context);
      const posted = signRequests(page);
      expect((await page.goto(linkOf(form)))!.status()).toBe(200);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        DESKTOP.width,
      );
      await shot(page, 'desktop-before');

      // By keyboard: the consent first, then the fields, the name, Clear, Sign (on once ticked) and Decline.
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      const focused = () =>
        page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('consent');
      await page.keyboard.press('Space');
      expect(await page.locator('#consent').isChecked()).toBe(true);
      const order: string[] = [];
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press('Tab');
        order.push((await focused())!);
      }
      expect(order).toEqual(['field-0', 'field-1', 'typed-name', 'clear', 'sign', 'SUMMARY']);
      // The focused control shows it.
      expect(await page.locator('#sign').evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('none');
      await page.keyboard.press('Shift+Tab');
      expect(await page.locator('#sign').evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
      await page.locator('#consent').uncheck();

      await fillIn(page, 'Lena M. Fischer');
      await page.getByLabel('Pets in the home').check();
      expect(await page.locator('#document [data-fill="pets"]').textContent()).toContain('Yes');
      await drawWithMouse(page);
      expect(await inkOnPad(page)).toBeGreaterThan(500);
      await page.getByRole('button', { name: 'Clear signature' }).click();
      expect(await inkOnPad(page)).toBe(0);
      await page.getByRole('button', { name: 'Sign', exact: true }).click();
      expect(await page.locator('#pad-err').textContent()).toBe('Draw your signature in the box.');
      expect(posted).toHaveLength(0);
      await drawWithMouse(page);
      await shot(page, 'desktop-filled');
      // The window narrows (a phone turned, a window resized): the pad and its strokes shrink together.
      const before = await page.evaluate(() => document.getElementById('pad')!.clientWidth);
      await page.setViewportSize({ width: 480, height: DESKTOP.height });
      const after = await page.evaluate(() => document.getElementById('pad')!.clientWidth);
      expect(after).toBeLessThan(before);
      expect(await inkOnPad(page)).toBeGreaterThan(300);
      await page.getByRole('button', { name: 'Sign', exact: true }).click();
      await page.getByRole('link', { name: 'Download your signed copy (PDF)' }).waitFor();
      expect(posted).toHaveLength(1);
      const body = posted[0].postDataJSON();
      expect(body.fields).toEqual({ initials_work: 'LF', pets: true });
      expect(body.signature.strokes).toHaveLength(1);
      expect(body.signature.width).toBe(after);
      const xs = body.signature.strokes[0].map(([x]: number[]) => x);
      // Drawn from a tenth to nine tenths of the pad's width, at either size.
      expect(Math.min(...xs)).toBeCloseTo(after * 0.1, -1);
      expect(Math.max(...xs)).toBeCloseTo(after * 0.9, -1);
      for (const [, y] of body.signature.strokes[0]) expect(y).toBeLessThanOrEqual(body.signature.height);
      expect(body.typed_name).toBe('Lena M. Fischer');
      expect(await page.locator('#signed-line').textContent()).toMatch(
        /^You signed this document as “Lena M\. Fischer” on /,
      );
      await page.setViewportSize(DESKTOP);
      await shot(page, 'desktop-after');
      const pages = await pdfPages(
        (await download(t, linkPath(linkOf(form), '/copy'))).bytes,
        'signed-desktop',
      );
      expect(pages.map((p) => p.text).join(' ')).toContain('Signed electronically as "Lena M. Fischer"');
    } finally {
      await context.close();
    }
  }, 90_000);

  it('keeps what was filled through a dropped connection, a lost answer and a changed document', async () => {
    const context = await phoneContext(browser);
    try {
      const page = await pageIn(context);
      const isSign = (url: URL) => url.pathname.endsWith('/sign');
      const ready = async (form: SignatureRequest) => {
        await page.goto(linkOf(form));
        await fillIn(page, 'Lena Fischer');
        await drawWithTouch(page);
      };
      const signButton = page.getByRole('button', { name: 'Sign', exact: true });

      // The request never leaves: the page says so, keeps everything, and Sign again signs.
      const dropped = await newForm();
      await ready(dropped);
      await page.route(isSign, (route) => route.abort('internetdisconnected'));
      await signButton.click();
      await page.locator('#sign-err:visible').waitFor();
      expect(await page.locator('#sign-err').textContent()).toBe(
        'No connection. Check the signal and try again.',
      );
      expect(await page.locator('#form').isVisible()).toBe(true);
      expect(await inkOnPad(page)).toBeGreaterThan(500);
      await viewOf(t, linkOf(dropped)).expect(200);
      await page.unroute(isSign);
      await signButton.click();
      await page.locator('#done-signed').waitFor();
      expect((await viewOf(t, linkOf(dropped)).expect(410)).body.code).toBe('form_closed');

      // The service signs but the answer is lost: Sign again hears that it is signed, and offers the copy.
      const lost = await newForm();
      await ready(lost);
      let served = 0;
      await page.route(isSign, async (route) => {
        served = (await route.fetch()).status();
        await route.abort('connectionreset');
      });
      await signButton.click();
      await page.locator('#sign-err:visible').waitFor();
      expect(served).toBe(201);
      await page.unroute(isSign);
      await signButton.click();
      await page.locator('#done-closed').waitFor();
      expect(await page.locator('#closed-detail').textContent()).toMatch(/^You signed this form on /);
      await page.getByRole('link', { name: 'Download your signed copy (PDF)' }).waitFor();
      expect(await page.locator('#form').isHidden()).toBe(true);
      await shot(page, 'phone-signed-answer-lost');
      expect(await t.db('job_form_signers').where({ form_id: lost.form_id, state: 'signed' })).toHaveLength(
        1,
      );

      // The document the service holds is not the one the page showed (409): nothing is signed.
      const changed = await newForm();
      await ready(changed);
      await page.route(isSign, (route) =>
        route.continue({
          postData: JSON.stringify({ ...route.request().postDataJSON(), document_sha256: 'f'.repeat(64) }),
        }),
      );
      await signButton.click();
      await page.locator('#sign-err:visible').waitFor();
      expect(await page.locator('#sign-err').textContent()).toContain(
        'The document changed after this page was opened',
      );
      await page.unroute(isSign);
      await viewOf(t, linkOf(changed)).expect(200);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('signs after the page was held open for an hour, and offers the copy once every signer has signed', async () => {
    const form = await newForm(completion);
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
    try {
      const page = await pageIn(context);
      await page.clock.install();
      await page.goto(linkOf(form));
      expect(await page.locator('#document [data-fill="finished_on"]').count()).toBe(1);
      // Only the customer's field is theirs to fill in.
      expect(
        await page
          .locator('[data-key]')
          .evaluateAll((inputs) => inputs.map((i) => i.getAttribute('data-key'))),
      ).toEqual(['satisfied']);
      await page.getByLabel('I agree to sign this document electronically.').check();
      await page.getByLabel('I am satisfied with the work').check();
      await page.getByLabel('Type your full name').fill('Lena Fischer');
      await drawWithMouse(page);
      await page.clock.fastForward('01:00:00');
      await page.getByRole('button', { name: 'Sign', exact: true }).click();
      await page.locator('#done-signed').waitFor();
      expect(await page.locator('#copy-wait').textContent()).toBe(
        'Your signed copy (PDF) can be downloaded here once everyone has signed.',
      );
      expect(await page.locator('#copy').isHidden()).toBe(true);
      await shot(page, 'desktop-after-first-of-three');

      // The technician and the office sign on their own links; the page asks now and then, and offers the copy.
      expect(
        (await sign(t, linkOf(form, 'technician'), { fields: { finished_on: '2026-11-20' } })).status,
      ).toBe(201);
      expect((await sign(t, linkOf(form, 'office'), { typed_name: 'Dana Brooks' })).status).toBe(201);
      const copyLink = page.getByRole('link', { name: 'Download your signed copy (PDF)' });
      // The page's clock is held: each turn lets its next ask go (the asks wait for one another).
      for (let turn = 0; turn < 40 && !(await copyLink.isVisible()); turn++) {
        await page.clock.runFor(16_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await copyLink.isVisible()).toBe(true);
      expect(await page.locator('#copy-wait').isHidden()).toBe(true);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('signs once when the same link signs in two tabs at once', async () => {
    const form = await newForm();
    const context = await phoneContext(browser);
    try {
      const tabs = [await pageIn(context), await pageIn(context)];
      for (const tab of tabs) {
        // A tab behind another draws no frames, and touch input waits for them.
        await tab.bringToFront();
        await tab.goto(linkOf(form));
        await fillIn(tab, 'Lena Fischer');
        await drawWithTouch(tab);
      }
      const answers = tabs.map((tab) =>
        tab.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/sign?')),
      );
      await Promise.all(tabs.map((tab) => tab.getByRole('button', { name: 'Sign', exact: true }).click()));
      const statuses = (await Promise.all(answers)).map((r) => r.status()).sort();
      expect(statuses[0]).toBe(201);
      expect([201, 410]).toContain(statuses[1]);
      // Each tab ends signed or saying it was signed; the service holds one signature.
      for (const tab of tabs) await tab.locator('#done-signed:visible, #done-closed:visible').waitFor();
      const signers = await t.db('job_form_signers').where({ form_id: form.form_id });
      expect(signers.map((signer) => signer.state)).toEqual(['signed']);
      expect(await t.db('documents').where({ job_id: form.job_id })).toHaveLength(1);
    } finally {
      await context.close();
    }
  });

  it('declines with a reason, and the link then says the form is closed', async () => {
    const form = await newForm();
    const context = await phoneContext(browser);
    try {
      const page = await pageIn(context);
      await page.goto(linkOf(form));
      await page.getByText('Decline to sign').click();
      const decline = page.getByRole('button', { name: 'Decline', exact: true });
      await decline.click();
      expect(await page.locator('#reason-err').textContent()).toBe('Say in a few words why you decline.');
      await page.getByLabel('Why are you declining?').fill('The price is not agreed yet');
      await decline.click();
      await page.locator('#done-declined').waitFor();
      expect(await page.locator('#done-declined h2').textContent()).toBe('Declined');
      expect(await page.locator('#done-declined p').textContent()).toBe(
        'You declined to sign this document. Your reason was sent to Dry Right Restoration.',
      );
      expect(await page.locator('#form').isHidden()).toBe(true);
      await shot(page, 'phone-declined');
      const closed = await viewOf(t, linkOf(form)).expect(410);
      expect(closed.body.detail).toContain('declined');

      const again = (await page.goto(linkOf(form)))!;
      expect(again.status()).toBe(410);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        'This form can no longer be signed',
      );
      expect(await page.locator('body').innerText()).toContain('declined');
    } finally {
      await context.close();
    }
  });

  it('answers an expired (410), used (410) and altered (403) link with a page that says so', async () => {
    const form = await newForm();
    const link = new URL(linkOf(form));
    const context = await phoneContext(browser);
    try {
      const page = await pageIn(context);
      const expectErrorPage = async (url: string, status: number, heading: string, name: string) => {
        const response = (await page.goto(url))!;
        expect(response.status()).toBe(status);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
        const text = await page.locator('body').innerText();
        expect(text).not.toMatch(/\bat .*\.(ts|js):\d+|Error:|stack/i);
        expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(response.headers()['referrer-policy']).toBe('no-referrer');
        expect(await page.locator('#pad, #sign').count()).toBe(0);
        await shot(page, name);
        return text;
      };

      const altered = new URL(link);
      altered.searchParams.set('g', 'office');
      await expectErrorPage(altered.toString(), 403, 'This link does not work', 'link-altered');
      const resigned = new URL(link);
      resigned.searchParams.set('s', `${link.searchParams.get('s')!.slice(0, -2)}AA`);
      await expectErrorPage(resigned.toString(), 403, 'This link does not work', 'link-altered-signature');

      const expires = Math.floor(Date.now() / 1000) - 60;
      const query = await signLinkQuery(t.media.links, {
        companyId: co.id,
        keyId: link.searchParams.get('k')!,
        jobId: form.job_id,
        formId: form.form_id,
        role: 'customer',
        expires,
      });
      const expired = await expectErrorPage(
        `${link.origin}${link.pathname}?${query}`,
        410,
        'This link has expired',
        'link-expired',
      );
      expect(expired).toContain('Ask');

      // Signed through the page's own endpoint, the link is used: opening it again says so.
      const view = (await viewOf(t, link.toString()).expect(200)).body;
      await t.http
        .post(linkPath(link.toString(), '/sign'))
        .send({
          consent: true,
          typed_name: 'Lena Fischer',
          fields: { initials_work: 'LF' },
          signature: {
            strokes: [
              [
                [10, 10],
                [90, 40],
              ],
            ],
            width: 100,
            height: 50,
          },
          document_sha256: view.document_sha256,
        })
        .expect(201);
      const used = await expectErrorPage(
        link.toString(),
        410,
        'This form can no longer be signed',
        'link-used',
      );
      expect(used).toContain('You signed this form');
    } finally {
      await context.close();
    }
  });

  it("renders a template's script and javascript: link as inert text", async () => {
    const form = await newForm(hostile);
    const context = await phoneContext(browser);
    try {
      const page = await pageIn(context);
      const blocked: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
      });
      expect((await page.goto(linkOf(form)))!.status()).toBe(200);
      const document = page.locator('#document');
      // The text shows as written, and nothing of it became an element.
      const text = await document.innerText();
      expect(text).toContain('<script>window.__ran = "script"</script>');
      expect(text).toContain('<a href="javascript:');
      expect(await document.locator('script, img, iframe, object, embed, [onerror]').count()).toBe(0);
      expect(await page.locator('script').count()).toBe(1);
      // The only link is the https one; no link anywhere on the page leads to javascript:.
      expect(
        await document
          .locator('a')
          .evaluateAll((as) =>
            as.map((a) => [a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')]),
          ),
      ).toEqual([['https://example.com/terms', '_blank', 'noopener noreferrer']]);
      expect(
        await page
          .locator('a[href]')
          .evaluateAll((as) => as.filter((a) => /^\s*javascript:/i.test(a.getAttribute('href')!)).length),
      ).toBe(0);
      // Clicking the words that looked like links runs nothing.
      await page.getByText('[Read the terms]', { exact: false }).click();
      await page.getByText('Click here', { exact: false }).click();
      expect(await page.evaluate(() => (window as unknown as { __ran?: string }).__ran)).toBeUndefined();
      expect(blocked).toEqual([]);
      // The template's name and field label are text too.
      expect(await page.locator('header h1').textContent()).toBe('Disclosure <b>bold</b>');
      expect(await page.locator('label[for="field-0"]').innerText()).toContain('Remarks <i>x</i>');
      await shot(page, 'phone-inert-template');
    } finally {
      await context.close();
    }
  });
});

interface Word {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  text: string;
}

const XML_ENTITIES: Record<string, string> = {
  '&quot;': '"',
  '&apos;': "'",
  '&lt;': '<',
  '&gt;': '>',
  '&amp;': '&',
};
const unescapeXml = (text: string): string =>
  text.replace(/&(quot|apos|lt|gt|amp);/g, (e) => XML_ENTITIES[e]);
