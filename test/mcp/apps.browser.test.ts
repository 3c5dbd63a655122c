/**
 * The MCP Apps in Chromium, each shown by a host page as a chat client shows it (test/support/
 * app-host.ts: the ext-apps SDK's own AppBridge, the ui:// resource read from the real service
 * over MCP, the app's tool calls sent to the service over MCP): the packet review's findings,
 * documents and a Build that does nothing until the person confirms; the drying log's GPP charts;
 * the photos by room and an upload into a chosen room. Every app loads nothing but its own page
 * and the service's pictures, and Chromium reports no CSP violation. Screenshots at a phone's and
 * a desktop's size go to test/artifacts/apps/ (and /tmp/apps-shots/).
 */
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
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
import { type AppHost, hostPage } from '../support/app-host';
import { describeInBrowser, launchChromium, phoneContext } from '../support/browser';
import { connectMcp } from '../support/mcp';
import { jpegWith } from '../support/photo-files';

type PdfExport = components['schemas']['PdfExport'];
const SHOTS = path.join(__dirname, '..', 'artifacts', 'apps');
const SHOTS_COPY = '/tmp/apps-shots';

describeInBrowser('MCP Apps in a host page', () => {
  let t: TestApp;
  let co: TestCompany;
  let browser: Browser;
  let client: Client;

  beforeAll(async () => {
    await Promise.all([mkdir(SHOTS, { recursive: true }), mkdir(SHOTS_COPY, { recursive: true })]);
    const launching = launchChromium();
    launching.catch(() => undefined); // awaited below
    t = await startApp();
    browser = await launching;
    co = await createCompany(t, { credits: 20 });
    client = await connectMcp(t, co.writeKey);
  });

  afterAll(async () => {
    await client?.close();
    await browser?.close();
    await t?.close();
  });

  const write = () => as(t, co.writeKey);
  const read = () => as(t, co.readKey);

  const SIZES = {
    phone: (b: Browser) => phoneContext(b),
    desktop: (b: Browser) => b.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' }),
  };

  interface Shown {
    page: Page;
    context: BrowserContext;
    host: AppHost;
    /** What the frame and the page asked for from anywhere but the service. */
    outside: string[];
    violations: string[];
  }

  /** A host page at `size` showing the app of `uri` for the assistant's call of `tool`. */
  async function show(
    size: keyof typeof SIZES,
    uri: string,
    tool: string,
    args: Record<string, unknown>,
  ): Promise<Shown & { result: CallToolResult }> {
    const context = await SIZES[size](browser);
    const page = await context.newPage();
    const outside: string[] = [];
    const violations: string[] = [];
    const service = new URL(t.url).origin;
    recordOutside(
      context,
      (url) => !url.startsWith('data:') && !url.startsWith('about:') && new URL(url).origin !== service,
      outside,
    );
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const host = await hostPage(page, client);
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    await host.mount(uri, args, result);
    return { page, context, host, outside, violations, result };
  }

  /**
   * Records into `outside` every request for `isOutside` URLs that left the browser: it got an
   * answer, or failed for any reason but the page's CSP. Chromium 156 reports a load the CSP
   * refused as a request that fails with "csp" at once; it never reaches the network.
   */
  function recordOutside(
    context: BrowserContext,
    isOutside: (url: string) => boolean,
    outside: string[],
  ): void {
    context.on('requestfinished', (request) => {
      if (isOutside(request.url())) outside.push(request.url());
    });
    context.on('requestfailed', (request) => {
      const refusedByCsp = /^csp$|BLOCKED_BY_CSP/i.test(request.failure()?.errorText ?? '');
      if (isOutside(request.url()) && !refusedByCsp) outside.push(request.url());
    });
  }

  const frameOf = (page: Page) => page.frameLocator('#app');

  /** Waits (up to 20 s) until `check` holds, then fails with `what` if it never did. */
  async function until(check: () => Promise<boolean>, what: () => Promise<string>): Promise<void> {
    for (const started = Date.now(); Date.now() - started < 20_000; ) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(await what());
  }
  const countIs = (locator: Locator, count: number) =>
    until(
      async () => (await locator.count()) === count,
      async () => `expected ${count} of ${locator}, found ${await locator.count()}`,
    );
  const textHas = (locator: Locator, text: string) =>
    until(
      async () => (await locator.count()) > 0 && (await locator.first().innerText()).includes(text),
      async () =>
        `expected "${text}" in ${locator}: ${(await locator.count()) ? await locator.first().innerText() : 'absent'}`,
    );

  /** The whole conversation: the viewport is made as tall as the page first, as a frame far below the fold is not painted otherwise. */
  async function screenshot(page: Page, name: string): Promise<void> {
    const file = path.join(SHOTS, `${name}.png`);
    const viewport = page.viewportSize()!;
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
    await page.screenshot({ path: file });
    await page.setViewportSize(viewport);
    await layoutSettled(page);
    await copyFile(file, path.join(SHOTS_COPY, `${name}.png`));
  }

  /**
   * Waits until the app's frame keeps one height for 300 ms. Giving the viewport back brings the
   * desktop's scrollbar back: the frame narrows, the app reflows and asks the host for a new
   * height, and a click during that resize can land beside its button.
   */
  async function layoutSettled(page: Page): Promise<void> {
    const frameHeight = () =>
      page.evaluate(() => document.getElementById('app')?.getBoundingClientRect().height ?? 0);
    let last = await frameHeight();
    let steady = 0;
    for (let tries = 0; tries < 50 && steady < 3; tries++) {
      await page.waitForTimeout(100);
      const now = await frameHeight();
      steady = now === last ? steady + 1 : 0;
      last = now;
    }
  }

  function expectClean(shown: Shown): void {
    expect(shown.outside).toEqual([]);
    expect(shown.violations).toEqual([]);
  }

  /** A job with a draft estimate and a drying log begun 3 days ago in Kitchen and Hall, read in Kitchen on day 1 only: three high findings. */
  async function jobWithFindings(): Promise<{ id: string; job_number: number; estimateId: string }> {
    const job = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Dana Reyes', title: 'Dishwasher leak' })
        .expect(201)
    ).body;
    const estimate = await draftKitchenEstimate(t, co.writeKey, job.id);
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({
        operation_id: opId(),
        start_date: companyDate(co, -3),
        rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
      })
      .expect(201);
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
      .send({ operation_id: opId(), day: 1, area: 'Kitchen', readings: [{ metric: 'drywall', value: 9 }] })
      .expect(201);
    return { ...job, estimateId: estimate.id };
  }

  const estimateStatus = async (id: string): Promise<string> =>
    (await read().get(`/api/v1/estimates/${id}`).expect(200)).body.status;

  it('sees a CSP violation, and an outside request when one leaves the browser (the checks below can fail)', async () => {
    const context = await SIZES.desktop(browser);
    const page = await context.newPage();
    const violations: string[] = [];
    const outside: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    recordOutside(context, (url) => url.startsWith('https://'), outside);
    const host = await hostPage(page, client);
    const [resource] = (await client.readResource({ uri: 'ui://jobs/drying-log' })).contents as {
      text: string;
    }[];
    const tampered = resource.text.replace(
      '<body>',
      '<body><script>document.title="ran"</script><img src="https://127.0.0.1:9/x.png" alt="">',
    );
    await host.mountResource({ ...resource, text: tampered }, {}, { content: [] });
    await until(
      async () => violations.length >= 2,
      async () => `violations seen: ${JSON.stringify(violations)}`,
    );
    expect(violations.join('\n')).toMatch(/script/);
    expect(violations.join('\n')).toMatch(/img-src|image/);
    expect(outside).toEqual([]);

    // Without a policy (the host page itself), the same picture is asked of the network: a closed port, so it fails at once.
    await page.evaluate(() => {
      const picture = document.createElement('img');
      picture.src = 'https://127.0.0.1:9/x.png';
      document.body.append(picture);
    });
    await until(
      async () => outside.includes('https://127.0.0.1:9/x.png'),
      async () => `outside requests seen: ${JSON.stringify(outside)}`,
    );
    await context.close();
  });

  describe('packet review', () => {
    for (const size of ['phone', 'desktop'] as const) {
      it(`shows the findings and documents, and builds only after the person confirms (${size})`, async () => {
        const job = await jobWithFindings();
        const shown = await show(size, 'ui://jobs/packet-review', 'check_claim_readiness', {
          job_id: job.id,
        });
        const readiness = shown.result.structuredContent as components['schemas']['ClaimReadiness'];
        const app = frameOf(shown.page);
        await countIs(app.locator('li.finding'), readiness.findings.length);
        const texts = await app.locator('li.finding').allInnerTexts();
        readiness.findings.forEach((finding, i) => {
          expect(texts[i]).toContain(finding.message);
          expect(texts[i]).toContain(finding.fix.tool);
          expect(texts[i].toLowerCase()).toContain(finding.severity);
        });
        // The packet's documents, with the estimate the preview (export_pdf) named.
        expect(await app.locator('#doc-estimate').isChecked()).toBe(true);
        await textHas(app.locator('#notice'), 'Not ready to go final');
        await app.locator('#build').waitFor();
        await screenshot(shown.page, `packet-review-${size}`);

        // Build asks first; nothing is asked of the service with a confirmation, and no link opens.
        const confirmed = () => shown.host.calls.filter((call) => call.arguments.confirm_findings);
        await app.locator('#build').click();
        await app.locator('#confirm').waitFor({ state: 'visible' });
        await countIs(app.locator('#confirmlist li'), readiness.counts.high);
        expect(await app.locator('#yes').isDisabled()).toBe(true);
        await screenshot(shown.page, `packet-review-confirm-${size}`);
        await app.locator('#no').click();
        await app.locator('#confirm').waitFor({ state: 'hidden' });
        expect(confirmed()).toEqual([]);
        expect(shown.host.links).toEqual([]);
        expect(await estimateStatus(job.estimateId)).toBe('draft');

        // Confirmed: export_pdf with the findings' keys, through the bridge, and the download page opens.
        await app.locator('#build').click();
        await app.locator('#ack').check();
        await app.locator('#yes').click();
        await textHas(app.locator('#status'), 'download page is open');
        expect(confirmed()).toHaveLength(1);
        expect(confirmed()[0]).toMatchObject({ name: 'export_pdf', arguments: { job_id: job.id } });
        expect((confirmed()[0].arguments.confirm_findings as string[]).sort()).toEqual(
          [
            'monitored_day_without_readings:day:1',
            'monitored_day_without_readings:day:2',
            'monitored_day_without_readings:day:3',
          ].sort(),
        );
        expect(shown.host.links).toHaveLength(1);
        const link = new URL(shown.host.links[0]);
        expect(`${link.origin}${link.pathname}`).toBe(`${t.url}/exports/${job.id}/packet`);
        // The link carries the confirmation: its Download is accepted; the estimate is final only once the PDF is delivered.
        const exported = (await client.callTool({ name: 'export_pdf', arguments: confirmed()[0].arguments }))
          .structuredContent as PdfExport;
        expect(exported.finalizes_estimate).toBe(true);
        const build = await fetch(exported.pdf_url, { method: 'POST' });
        expect(build.status).toBe(202);
        expect(await estimateStatus(job.estimateId)).toBe('draft');
        await screenshot(shown.page, `packet-review-built-${size}`);
        expectClean(shown);
        await shown.context.close();
      });
    }
  });

  it('takes over from an export_pdf the assistant was refused: the findings to confirm, then Build', async () => {
    const job = await jobWithFindings();
    const shown = await show('desktop', 'ui://jobs/packet-review', 'export_pdf', {
      job_id: job.id,
      documents: ['estimate', 'drying_log'],
    });
    expect(shown.result.isError).toBe(true);
    const app = frameOf(shown.page);
    // The readiness is read through the host; the documents are the ones the assistant asked for.
    await countIs(app.locator('li.finding.high'), 3);
    expect(shown.host.calls.map((call) => call.name)).toEqual(['check_claim_readiness']);
    expect(await app.locator('#doc-photos').isChecked()).toBe(false);
    await textHas(app.locator('#notice'), 'Not ready to go final');
    await app.locator('#build').click();
    await countIs(app.locator('#confirmlist li'), 3);
    await app.locator('#ack').check();
    await app.locator('#yes').click();
    await textHas(app.locator('#status'), 'download page is open');
    expect(shown.host.calls.at(-1)).toMatchObject({
      name: 'export_pdf',
      arguments: { job_id: job.id, documents: ['estimate', 'drying_log'] },
    });
    expect(shown.host.calls.at(-1)!.arguments.confirm_findings).toHaveLength(3);
    expect(shown.host.links).toHaveLength(1);
    expect(await estimateStatus(job.estimateId)).toBe('draft');
    expectClean(shown);
    await shown.context.close();
  });

  /** A job whose log started 2 days ago (days 1–3) in Kitchen and Hall, with a chamber, air, materials and equipment read each day. */
  async function jobWithReadings(): Promise<{ id: string; job_number: number }> {
    const job = (
      await write()
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Chamber Chen' })
        .expect(201)
    ).body;
    await write()
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({
        operation_id: opId(),
        label: 'Mitigation',
        rooms: [
          { name: 'Kitchen', length: 12, width: 10, height: 8 },
          { name: 'Hall', length: 10, width: 4, height: 8 },
        ],
        line_items: [
          { description: 'Extraction', room: 'Kitchen', unit: 'SF', quantity: 120, unit_price_cents: 100 },
        ],
      })
      .expect(201);
    const log = `/api/v1/jobs/${job.id}/drying-log`;
    await write()
      .post(log)
      .send({
        operation_id: opId(),
        start_date: companyDate(co, -2),
        rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
      })
      .expect(201);
    await write()
      .put(`${log}/chambers`)
      .send({
        operation_id: opId(),
        chambers: [
          {
            name: 'Main floor',
            category: 2,
            areas: [
              { name: 'Kitchen', wet_floor_sqft: 120, wet_wall_sqft: 40 },
              { name: 'Hall', wet_floor_sqft: 40 },
            ],
          },
        ],
      })
      .expect(200);
    await write()
      .post(`${log}/equipment`)
      .send({ operation_id: opId(), day: 1, area: 'Kitchen', units: [{ kind: 'air_mover', count: 4 }] })
      .expect(201);
    const air = (temp: number, rh: number) => [
      { metric: 'temp_f', value: temp },
      { metric: 'rh_pct', value: rh },
    ];
    const days = [
      {
        kitchen: [78, 70],
        hall: [76, 65],
        drywall: [28, 26],
        wood: 24,
        outside: [55, 85],
        unaffected: [70, 45],
      },
      {
        kitchen: [80, 55],
        hall: [77, 50],
        drywall: [19, 20],
        wood: 18,
        outside: [60, 70],
        unaffected: [71, 44],
      },
      {
        kitchen: [80, 45],
        hall: [78, 42],
        drywall: [11, 14],
        wood: 13,
        outside: [52, 90],
        unaffected: [70, 43],
      },
    ];
    for (const [i, d] of days.entries())
      await write()
        .post(`${log}/readings`)
        .send({
          operation_id: opId(),
          day: i + 1,
          rows: [
            {
              area: 'Kitchen',
              readings: [
                ...air(d.kitchen[0], d.kitchen[1]),
                { metric: 'drywall', value: d.drywall[0], point: 'North wall' },
                { metric: 'drywall', value: d.drywall[1], point: 'Sink base' },
              ],
            },
            {
              area: 'Hall',
              readings: [...air(d.hall[0], d.hall[1]), { metric: 'wood', value: d.wood, point: 'Floor' }],
            },
            { location: 'outside', readings: air(d.outside[0], d.outside[1]) },
            { location: 'unaffected', readings: air(d.unaffected[0], d.unaffected[1]) },
          ],
        })
        .expect(201);
    return job;
  }

  describe('drying log', () => {
    let job: { id: string; job_number: number };
    beforeAll(async () => {
      job = await jobWithReadings();
    });

    for (const size of ['phone', 'desktop'] as const) {
      it(`draws each area's GPP with the outside air and the goal, materials by day and equipment against plan (${size})`, async () => {
        const shown = await show(size, 'ui://jobs/drying-log', 'get_drying_log', { job_id: job.id });
        const app = frameOf(shown.page);
        // The summary has no daily readings: the app asked for them through the host.
        await countIs(app.locator('svg.chart'), 2);
        expect(shown.host.calls).toEqual([
          { name: 'get_drying_log', arguments: { job_id: job.id, detail: 'readings' } },
        ]);
        for (const area of ['Kitchen', 'Hall']) {
          const chart = app.locator(`svg.chart[data-area="${area}"]`);
          for (const series of ['area', 'outside', 'goal']) {
            const d = await chart.locator(`path[data-series="${series}"]`).getAttribute('d');
            // Three days, three points: a move and two lines.
            expect(d).toMatch(/^M[\d.]+ [\d.]+ L[\d.]+ [\d.]+ L[\d.]+ [\d.]+$/);
          }
        }
        const kitchen = app.locator('section.area[aria-label="Kitchen"]');
        await countIs(kitchen.locator('table.materials tbody tr'), 2);
        expect(await kitchen.locator('table.materials thead th').allInnerTexts()).toEqual([
          'Material',
          'Goal',
          'D1',
          'D2',
          'D3',
        ]);
        expect(await kitchen.locator('td.wet').count()).toBeGreaterThan(0);
        await textHas(app.locator('table.equipment'), 'Main floor');
        await textHas(app.locator('table.equipment'), '4 of');
        await screenshot(shown.page, `drying-log-${size}`);
        expectClean(shown);
        await shown.context.close();
      });
    }
  });

  describe('photos', () => {
    let job: { id: string; job_number: number };
    beforeAll(async () => {
      job = (
        await write()
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), customer_name: 'Photo Phil' })
          .expect(201)
      ).body;
      const photos = [
        { room: 'Kitchen', caption: 'Water under the sink', size: [1200, 900] },
        { room: 'Kitchen', caption: 'Swollen toe kick', size: [900, 1200] },
        { room: 'Hall', caption: 'Wet runner by the door', size: [1600, 900] },
      ];
      for (const photo of photos) {
        await write()
          .post(`/api/v1/jobs/${job.id}/photos`)
          .field(
            'meta',
            JSON.stringify({ operation_id: opId(), room: photo.room, photos: [{ caption: photo.caption }] }),
          )
          .attach('photo', await jpegWith({ width: photo.size[0], height: photo.size[1] }), {
            filename: 'p.jpg',
            contentType: 'image/jpeg',
          })
          .expect(201);
      }
    });

    it('shows the pictures view_photos gave the assistant, by room with captions', async () => {
      const shown = await show('desktop', 'ui://jobs/photos', 'view_photos', {
        job_id: job.id,
        room: 'Kitchen',
      });
      const app = frameOf(shown.page);
      await countIs(app.locator('section.room[data-room="Kitchen"] li.photo'), 2);
      await textHas(app.locator('section.room[data-room="Kitchen"]'), 'Water under the sink');
      await textHas(app.locator('#job'), `Job #${job.job_number}`);
      await until(
        async () =>
          (
            await app
              .locator('li.photo img')
              .evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).naturalWidth > 0))
          ).every(Boolean),
        async () => 'the pictures did not load',
      );
      // The room choice offers every room of the job (list_job_photos, asked through the host).
      expect(await app.locator('#room option').allInnerTexts()).toEqual([
        'Unsorted',
        'Hall',
        'Kitchen',
        'New room…',
      ]);
      expectClean(shown);
      await shown.context.close();
    });

    const roomCount = async (room: string): Promise<number> =>
      (await read().get(`/api/v1/jobs/${job.id}/photos?room=${room}`).expect(200)).body.data.length;

    for (const size of ['phone', 'desktop'] as const) {
      it(`shows the photos by room with captions, and adds one into the chosen room (${size})`, async () => {
        const shown = await show(size, 'ui://jobs/photos', 'list_job_photos', { job_id: job.id });
        const app = frameOf(shown.page);
        const kitchen = app.locator('section.room[data-room="Kitchen"]');
        await countIs(kitchen.locator('li.photo'), 2);
        await textHas(kitchen, 'Water under the sink');
        await textHas(kitchen, 'Swollen toe kick');
        await countIs(app.locator('section.room[data-room="Hall"] li.photo'), await roomCount('Hall'));
        // The pictures are the service's own signed links, and they load.
        const loaded = await app
          .locator('li.photo img')
          .evaluateAll((imgs) =>
            imgs.map(
              (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
            ),
          );
        expect(loaded.every(Boolean)).toBe(true);
        await screenshot(shown.page, `photos-${size}`);

        // Add photos into the Hall: an upload link for the Hall, opened by the host, where the person picks the file.
        const before = await roomCount('Hall');
        await app.locator('#room').selectOption('Hall');
        await app.locator('#add').click();
        await textHas(app.locator('#status'), 'upload page is open for Hall');
        expect(shown.host.calls.at(-1)).toEqual({
          name: 'get_photo_upload_link',
          arguments: { job_id: job.id, room: 'Hall' },
        });
        const opened = await shown.context.newPage();
        await opened.goto(shown.host.links[0]);
        await opened.locator('#library').setInputFiles({
          name: 'hall.jpg',
          mimeType: 'image/jpeg',
          // A picture of its own for each size (the same bytes again would be the same photo).
          buffer: await jpegWith({ width: size === 'phone' ? 800 : 640, height: 600 }),
        });
        await textHas(opened.locator('#files li.done'), 'Hall');
        await opened.close();
        expect(await roomCount('Hall')).toBe(before + 1);

        await app.locator('#refresh').click();
        await countIs(app.locator('section.room[data-room="Hall"] li.photo'), before + 1);
        await screenshot(shown.page, `photos-added-${size}`);
        expectClean(shown);
        await shown.context.close();
      });
    }
  });
});
