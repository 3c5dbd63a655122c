/**
 * The upload page in a real browser: Debian's Chromium, headless, driven by playwright-core in a
 * phone-sized context. It opens a link from `get_photo_upload_link`, checks what a person sees and
 * can reach by keyboard, uploads a JPEG and a HEIC from the library and a JPEG from the camera into
 * a new room, and makes uploads fail on the way there and on the way back to show that Retry never
 * stores a photo twice. An expired link shows its own page. Screenshots go to test/artifacts/.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import type { components } from '../../sdk/src/schema';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { describeInBrowser, launchChromium, phoneContext } from '../support/browser';
import { pdfOf } from '../support/document-files';
import { makeTestVideos } from '../support/video-files';

type PhotoList = components['schemas']['PhotoList'];
type PhotoUploadLink = components['schemas']['PhotoUploadLink'];

const HEIC_FIXTURE = path.join(__dirname, '..', 'fixtures/heic/phone.heic');
const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

describeInBrowser('the upload page on a phone', () => {
  let t: TestApp;
  let co: TestCompany;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let job: { id: string; job_number: number };
  let link: PhotoUploadLink;
  let shade = 0;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const launching = launchChromium();
    launching.catch(() => undefined); // awaited below; this only keeps a failed launch from being reported as unhandled meanwhile
    t = await startApp();
    browser = await launching;
    co = await createCompany(t);
    context = await phoneContext(browser);
    page = await context.newPage();
    job = (
      await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Pat Phone', title: 'Burst pipe under sink' })
        .expect(201)
    ).body;
    link = (
      await as(t, co.writeKey).get(`/api/v1/jobs/${job.id}/photos/upload-link?room=Kitchen`).expect(200)
    ).body;
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The link's page on the test server (the link itself names the configured public URL). */
  const onTestServer = (url: string): string => {
    const u = new URL(url);
    return `${t.url}${u.pathname}${u.search}`;
  };

  const photos = async (): Promise<PhotoList> =>
    (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/photos?limit=100`).expect(200)).body;

  /** A small JPEG whose content (and so SHA-256) differs from every other one made here. */
  async function jpeg(): Promise<Buffer> {
    shade += 1;
    const background = { r: (shade * 53) % 256, g: (shade * 97) % 256, b: (shade * 151) % 256 };
    return sharp({ create: { width: 1200, height: 900, channels: 3, background } })
      .composite([
        {
          input: Buffer.from(
            `<svg width="1200" height="900"><rect x="100" y="100" width="${200 + shade * 40}" height="300" fill="white"/></svg>`,
          ),
          top: 0,
          left: 0,
        },
      ])
      .jpeg({ quality: 80 })
      .toBuffer();
  }

  /** An iPhone-like HEIC (test/fixtures/heic/README.md). */
  const heic = (): Promise<Buffer> => readFile(HEIC_FIXTURE);

  /** Waits until the last `count` items of the page's list all have a state matching `done`. */
  async function states(count: number, done: RegExp, timeoutMs = 15_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const texts = await page.locator('#files li .state').allTextContents();
      if (texts.length >= count && texts.slice(-count).every((text) => done.test(text)))
        return texts.slice(-count);
      if (Date.now() > deadline)
        throw new Error(
          `the last ${count} items did not reach ${done} within ${timeoutMs} ms; states: ${JSON.stringify(texts)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Whether an intercepted request is an upload of the page. */
  const isUpload = (url: URL): boolean => url.pathname === `/upload/${job.id}/photos`;

  it('opens from get_photo_upload_link with Kitchen chosen, big controls and a keyboard path', async () => {
    const response = await page.goto(onTestServer(link.url));
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe(`Photos, videos and documents for job #${job.job_number}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Add photos, videos and documents',
    );
    expect(await page.locator('p.job').textContent()).toContain(`Job #${job.job_number}`);

    // The two buttons are labels around file inputs; their text is the inputs' accessible name.
    expect((await page.locator('label[for=camera]').innerText()).trim()).toBe('Take photo');
    expect((await page.locator('label[for=library]').innerText()).trim()).toBe('Choose from library');
    const camera = page.getByLabel('Take photo');
    const library = page.getByLabel('Choose from library');
    expect(await camera.getAttribute('id')).toBe('camera');
    expect(await camera.getAttribute('capture')).toBe('environment');
    expect(await camera.getAttribute('accept')).toBe('image/*');
    expect(await library.getAttribute('id')).toBe('library');
    expect(await library.getAttribute('multiple')).not.toBeNull();

    const room = page.getByLabel('Room', { exact: true });
    expect(await room.getAttribute('id')).toBe('room');
    expect(await room.inputValue()).toBe('Kitchen');
    expect(await room.locator('option:checked').textContent()).toBe('Kitchen');
    expect(await room.locator('option').allTextContents()).toEqual(['Unsorted', 'Kitchen', 'New room…']);
    expect(await page.locator('#newroom').isHidden()).toBe(true);

    // Touch targets: the two buttons at least 44 px high and side by side within the screen.
    for (const name of ['camera', 'library']) {
      const box = (await page.locator(`label[for=${name}]`).boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    expect((await room.boundingBox())!.height).toBeGreaterThanOrEqual(40);
    // Nothing wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Keyboard: Tab goes to the room, the time taken, then the camera, then the library; the focused button shows it.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    // (The time's month, day, year, hour and minute are a Tab each, within one field.)
    const order: string[] = [];
    for (let i = 0; i < 12 && order.at(-1) !== 'library'; i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => document.activeElement?.id ?? '');
      if (order.at(-1) !== id) order.push(id);
    }
    expect(order).toEqual(['room', 'taken', 'camera', 'library']);
    const outline = await page
      .locator('label[for=library]')
      .evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).toBe('solid');
    await page.locator('#room').focus();

    await page.screenshot({ path: path.join(ARTIFACTS, 'upload-page-start.png'), fullPage: true });
  });

  it('uploads a JPEG and a HEIC from the library into Kitchen', async () => {
    await page.locator('#library').setInputFiles([
      { name: 'IMG_0001.JPG', mimeType: 'image/jpeg', buffer: await jpeg() },
      { name: 'IMG_0002.HEIC', mimeType: 'image/heic', buffer: await heic() },
    ]);
    expect(await states(2, /^Saved · Kitchen$/)).toEqual(['Saved · Kitchen', 'Saved · Kitchen']);
    expect(await page.locator('#files li .name').allTextContents()).toEqual([
      'IMG_0001.JPG',
      'IMG_0002.HEIC',
    ]);
    expect(await page.locator('#files li.done').count()).toBe(2);
    expect(await page.locator('#files li button:visible').count()).toBe(0);

    const list = await photos();
    expect(list.total).toBe(2);
    expect(list.data.map((p) => p.room)).toEqual(['Kitchen', 'Kitchen']);
    expect(list.data.map((p) => p.format).sort()).toEqual(['heic', 'jpeg']);
    expect(list.data.every((p) => p.uploaded_via === 'upload_page')).toBe(true);
    expect(list.data.map((p) => p.name).sort()).toEqual(['IMG_0001.JPG', 'IMG_0002.HEIC']);
  });

  it('files a video from the library and a PDF picked as a document by their kind', async () => {
    const videos = await makeTestVideos();
    try {
      await page
        .locator('#library')
        .setInputFiles({ name: 'walkthrough.mp4', mimeType: 'video/mp4', buffer: videos.mp4 });
      expect(await states(1, /^Saved/)).toEqual(['Saved · Kitchen']);
      expect(await page.getByLabel('Add a document').getAttribute('multiple')).not.toBeNull();
      await page.locator('#document').setInputFiles({
        name: 'Moisture map.pdf',
        mimeType: 'application/pdf',
        buffer: pdfOf([{ lines: ['MOISTURE MAP'] }]),
      });
      expect(await states(1, /^Saved/)).toEqual(['Saved · Kitchen']);
    } finally {
      await videos.remove();
    }
    const reader = as(t, co.readKey);
    const listedVideos = (await reader.get(`/api/v1/jobs/${job.id}/videos`).expect(200)).body;
    expect(listedVideos.data).toHaveLength(1);
    expect(listedVideos.data[0]).toMatchObject({
      name: 'walkthrough.mp4',
      room: 'Kitchen',
      format: 'mp4',
      uploaded_via: 'upload_page',
    });
    const documents = (await reader.get(`/api/v1/jobs/${job.id}/documents`).expect(200)).body;
    expect(documents.data).toHaveLength(1);
    expect(documents.data[0]).toMatchObject({
      name: 'Moisture map.pdf',
      kind: 'pdf',
      room: 'Kitchen',
      uploaded_via: 'upload_page',
      page_count: 1,
    });
    // Neither went to the photos.
    expect((await photos()).total).toBe(2);
    await page.screenshot({ path: path.join(ARTIFACTS, 'upload-page-kinds.png'), fullPage: true });
  }, 60_000);

  it('takes a photo with the camera into a new room', async () => {
    await page.getByLabel('Room', { exact: true }).selectOption({ label: 'New room…' });
    const name = page.getByLabel("New room's name");
    expect(await name.isVisible()).toBe(true);
    expect(await name.evaluate((el) => el === document.activeElement)).toBe(true);
    await name.fill('Laundry');
    await page
      .locator('#camera')
      .setInputFiles({ name: 'image.jpg', mimeType: 'image/jpeg', buffer: await jpeg() });
    expect(await states(1, /^Saved/)).toEqual(['Saved · Laundry']);

    const list = await photos();
    expect(list.total).toBe(3);
    const laundry = list.data.filter((p) => p.room === 'Laundry');
    expect(laundry).toHaveLength(1);
    expect(laundry[0]).toMatchObject({ format: 'jpeg', uploaded_via: 'upload_page', name: 'image.jpg' });
  });

  it('retries an upload that never reached the service and stores it once', async () => {
    const before = (await photos()).total;
    let attempts = 0;
    const failFirst = async (route: Route) => {
      attempts += 1;
      if (attempts === 1) await route.abort('failed');
      else await route.continue();
    };
    await page.route(isUpload, failFirst);
    await page
      .locator('#library')
      .setInputFiles({ name: 'weak-signal.jpg', mimeType: 'image/jpeg', buffer: await jpeg() });
    expect(await states(1, /No connection/)).toEqual(['No connection. Check the signal and retry.']);
    const item = page.locator('#files li').last();
    expect(await item.getAttribute('class')).toBe('failed');
    const retry = item.getByRole('button', { name: 'Retry' });
    expect(await retry.isVisible()).toBe(true);
    expect((await retry.boundingBox())!.height).toBeGreaterThanOrEqual(36);
    expect((await photos()).total).toBe(before);
    await page.screenshot({ path: path.join(ARTIFACTS, 'upload-page-retry.png'), fullPage: true });

    await page.unroute(isUpload, failFirst);
    await retry.click();
    expect(await states(1, /^Saved/)).toEqual(['Saved · Laundry']);
    expect(await retry.isVisible()).toBe(false);
    expect(attempts).toBe(1);
    expect((await photos()).total).toBe(before + 1);
  });

  it('retries an upload whose answer was lost and replays it instead of storing it again', async () => {
    await page.getByLabel('Room', { exact: true }).selectOption({ label: 'Kitchen' });
    const before = (await photos()).total;
    let served: number | null = null;
    const loseAnswer = async (route: Route) => {
      if (served !== null) return route.continue();
      const answer = await route.fetch(); // the service receives and stores the photo…
      served = answer.status();
      await route.abort('connectionreset'); // …and the phone never hears back
    };
    await page.route(isUpload, loseAnswer);
    await page
      .locator('#library')
      .setInputFiles({ name: 'lost-answer.jpg', mimeType: 'image/jpeg', buffer: await jpeg() });
    expect(await states(1, /No connection/)).toEqual(['No connection. Check the signal and retry.']);
    expect(served).toBe(201);
    expect((await photos()).total).toBe(before + 1);

    await page.unroute(isUpload, loseAnswer);
    const item = page.locator('#files li').last();
    await item.getByRole('button', { name: 'Retry' }).click();
    expect(await states(1, /^Saved/)).toEqual(['Saved · Kitchen']);
    const list = await photos();
    expect(list.total).toBe(before + 1);
    expect(list.data.filter((p) => p.name === 'lost-answer.jpg')).toHaveLength(1);

    await page.screenshot({ path: path.join(ARTIFACTS, 'upload-page.png'), fullPage: true });
  });

  it('gives photos without a camera time the time typed in "Taken at"; left empty, they are uploaded, not taken', async () => {
    await page.getByLabel('Room', { exact: true }).selectOption({ label: 'Kitchen' });
    const taken = page.getByLabel('Taken at (optional)');
    expect(await taken.getAttribute('type')).toBe('datetime-local');
    const box = (await taken.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(40);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await taken.fill('2026-11-20T14:03');
    // The phone's clock says where 14:03 is: the page sends it with the phone's offset.
    const expected = await page.evaluate(() => new Date('2026-11-20T14:03').toISOString());
    await page
      .locator('#library')
      .setInputFiles({ name: 'no-exif-given.jpg', mimeType: 'image/jpeg', buffer: await jpeg() });
    expect(await states(1, /^Saved/)).toEqual(['Saved · Kitchen']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'upload-page-taken.png'), fullPage: true });
    await taken.fill('');
    await page
      .locator('#library')
      .setInputFiles({ name: 'no-exif-none.jpg', mimeType: 'image/jpeg', buffer: await jpeg() });
    expect(await states(1, /^Saved/)).toEqual(['Saved · Kitchen']);

    const byName = new Map((await photos()).data.map((p) => [p.name, p]));
    expect(byName.get('no-exif-given.jpg')).toMatchObject({ taken_at: expected, taken_at_source: 'given' });
    expect(byName.get('no-exif-none.jpg')).toMatchObject({ taken_at: null, taken_at_source: 'upload_time' });
  });

  it('shows an expired link as expired (410)', async () => {
    const keyId = new URL(link.url).searchParams.get('k')!;
    expect(keyId).toBeTruthy();
    const expires = Math.floor(Date.now() / 1000) - 60;
    const facts = {
      purpose: 'upload' as const,
      companyId: co.id,
      object: job.id,
      extra: `${keyId}\n`,
      expires,
    };
    const s = await t.media.links.sign(facts);
    const expired = await context.newPage();
    try {
      const response = await expired.goto(
        `${t.url}/upload/${job.id}?c=${co.id}&k=${keyId}&e=${expires}&s=${s}`,
      );
      expect(response?.status()).toBe(410);
      expect(await expired.getByRole('heading', { level: 1 }).textContent()).toBe('This link has expired');
      expect(await expired.locator('body').innerText()).toContain('Ask for a new link.');
      expect(await expired.locator('#library').count()).toBe(0);
      await expired.screenshot({ path: path.join(ARTIFACTS, 'upload-page-expired.png'), fullPage: true });
    } finally {
      await expired.close();
    }
  });
});
