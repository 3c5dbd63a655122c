/**
 * Exports over HTTP and MCP: the PDF packet's link, its download page and PDF (read back with
 * poppler's pdftotext and pdfinfo), finalising the estimate on download only, the photo ZIP
 * (unzipped: folders, names, manifest, no location), bad links, other companies and read keys,
 * on both file stores (local disk and S3-compatible storage served by s3rver).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import http from 'node:http';
import path from 'node:path';
import exifr from 'exifr';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { components } from '../../sdk/src/schema';
import { personLinkQuery } from '../../src/platform/person-links';
import {
  ADMIN_TOKEN,
  as,
  atOnce,
  companyDate,
  createCompany,
  feedSettled,
  opId,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { jpegWith, noisyJpeg } from '../support/photo-files';
import { startAppOn } from '../support/s3';
import { connectMcp } from '../support/mcp';

type Schemas = components['schemas'];
type PdfExport = Schemas['PdfExport'];
type PhotoExport = Schemas['PhotoExport'];
type Estimate = Schemas['Estimate'];
type Entry = Schemas['ChangeEntry'];
type PacketBuild = Schemas['PacketBuild'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let scratch: string;

const write = (company = co) => as(t, company.writeKey);
const read = (company = co) => as(t, company.readKey);

/** Links name the service's PUBLIC_URL; the test's service listens on a port of its own. */
function local(url: string): string {
  const link = new URL(url);
  return `${t.url}${link.pathname}${link.search}`;
}

async function newJob(company = co): Promise<{ id: string; job_number: number }> {
  return (
    await write(company)
      .post('/api/v1/jobs')
      .send({
        operation_id: opId(),
        customer_name: 'Maria Delgado',
        customer_phone: '217-555-0142',
        address_line1: '12 Elm St',
        city: 'Springfield',
        region: 'IL',
        claim_number: 'CLM-7731',
        carrier: 'Acme Mutual',
      })
      .expect(201)
  ).body;
}

async function newEstimate(jobId: string, company = co): Promise<Estimate> {
  const body = {
    operation_id: opId(),
    label: 'Water mitigation',
    rooms: [
      { name: 'Kitchen', length: 12, width: 10, height: 8 },
      { name: 'Hall', length: 10, width: 4, height: 8 },
    ],
    line_items: [
      { description: 'Water extraction', room: 'Kitchen', unit: 'SF', quantity: 120, unit_price_cents: 123 },
      { description: 'Antimicrobial', room: 'Hall', unit: 'SF', quantity: 40, unit_price_cents: 47 },
    ],
  };
  return (await write(company).post(`/api/v1/jobs/${jobId}/estimates`).send(body).expect(201)).body.estimate;
}

async function addPhotos(
  jobId: string,
  photos: { room?: string; caption?: string; name?: string; gps?: boolean; taken?: string }[],
): Promise<{ id: string; sha256: string }[]> {
  const meta = {
    operation_id: opId(),
    photos: photos.map(({ room, caption, name }) => ({
      ...(room ? { room } : {}),
      ...(caption ? { caption } : {}),
      ...(name ? { name } : {}),
    })),
  };
  const req = t.http
    .post(`/api/v1/jobs/${jobId}/photos`)
    .set('Authorization', `Bearer ${co.writeKey}`)
    .field('meta', JSON.stringify(meta));
  for (const [i, photo] of photos.entries()) {
    const data = await jpegWith({
      width: 1600 + i,
      height: 1200,
      gps: photo.gps,
      taken: { local: photo.taken ?? `2026-11-2${i % 9}T10:0${i % 10}:00`, offset: '-06:00' },
    });
    req.attach('photo', data, { filename: `p${i}.jpg`, contentType: 'image/jpeg' });
  }
  return (await req.expect(201)).body.photos;
}

async function addNoisyPhotos(jobId: string, count: number): Promise<void> {
  const req = t.http
    .post(`/api/v1/jobs/${jobId}/photos`)
    .set('Authorization', `Bearer ${co.writeKey}`)
    .field('meta', JSON.stringify({ operation_id: opId(), room: 'Kitchen' }));
  for (let i = 0; i < count; i++)
    req.attach('photo', await noisyJpeg(1200, 900), { filename: `noise${i}.jpg`, contentType: 'image/jpeg' });
  await req.expect(201);
}

async function exportPdf(jobId: string, query: string, key = co.readKey): Promise<PdfExport> {
  return (await as(t, key).get(`/api/v1/jobs/${jobId}/export-pdf?${query}`).expect(200)).body;
}

/** A packet as a program asks for it: POST pdf_url (202 with the build), then its status until built. */
async function builtPacket(link: PdfExport): Promise<PacketBuild> {
  const res = await fetch(local(link.pdf_url), { method: 'POST' });
  expect(res.status).toBe(202);
  let build = (await res.json()) as PacketBuild;
  expect(res.headers.get('location')).toBe(build.status_url);
  while (build.state === 'queued' || build.state === 'building') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  expect(build).toMatchObject({ state: 'ready', error: null });
  return build;
}

/** The built PDF's text, page count and pictures (poppler's pdftotext, pdfinfo, pdfimages). */
async function downloadPdf(link: PdfExport): Promise<{
  text: string;
  pages: number;
  pictures: { width: number; height: number }[];
  build: PacketBuild;
}> {
  const build = await builtPacket(link);
  const res = await fetch(local(build.download_url!));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(Number(res.headers.get('content-length'))).toBe(build.bytes);
  const file = path.join(scratch, `${opId()}.pdf`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return { ...readPdf(file), build: await deliveredBuild(build) };
}

/**
 * The build once its delivery is recorded. A client knows it has the whole file from its length,
 * a moment before the service, having handed the last byte over, records it (and finalises).
 */
async function deliveredBuild(build: PacketBuild): Promise<PacketBuild> {
  // Up to 10 s: on PGlite's one connection, under a loaded suite, the writes queue.
  for (let tries = 0; !build.delivered && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    build = (await (await fetch(local(build.status_url))).json()) as PacketBuild;
  }
  expect(build.delivered).toBe(true);
  return build;
}

function readPdf(file: string): {
  text: string;
  pages: number;
  pictures: { width: number; height: number }[];
} {
  const info = execFileSync('pdfinfo', [file]).toString();
  const pictures = execFileSync('pdfimages', ['-list', file])
    .toString()
    .split('\n')
    .slice(2)
    .filter((line) => line.trim())
    .map((line) => line.trim().split(/\s+/))
    .map((columns) => ({ width: Number(columns[3]), height: Number(columns[4]) }));
  return {
    text: execFileSync('pdftotext', ['-layout', file, '-']).toString(),
    pages: Number(/Pages:\s+(\d+)/.exec(info)![1]),
    pictures,
  };
}

/** Starts a GET of `url`, reads nothing of the body, and closes the connection a moment after its headers. */
function abandonDownload(url: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const req = http.get(url, () => {
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    req.on('error', () => resolve());
  });
}

const estimateOf = async (id: string): Promise<Estimate> =>
  (await read().get(`/api/v1/estimates/${id}`).expect(200)).body;

async function feedOf(jobNumber: number): Promise<Entry[]> {
  await feedSettled(t);
  const entries: Entry[] = [];
  for (let cursor: string | null = null; ; ) {
    const page: { data: Entry[]; next_cursor: string | null } = (
      await read()
        .get(`/api/v1/changes?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200)
    ).body;
    entries.push(...page.data);
    if (page.data.length < 100) break;
    cursor = page.next_cursor;
  }
  return entries.filter((entry) => entry.job?.job_number === jobNumber);
}

const money = (cents: number) =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

async function keyIdOf(key: string): Promise<string> {
  return (await as(t, key).get('/api/v1/context').expect(200)).body.key.id;
}

describe.each(['disk', 's3'] as const)('exports on %s storage', (store) => {
  beforeAll(async () => {
    t = await startAppOn(store);
    co = await createCompany(t, { credits: 50 });
    other = await createCompany(t);
    scratch = await mkdtemp(path.join(tmpdir(), 'exports-test-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(scratch, { recursive: true, force: true });
  });

  describe('export_pdf', () => {
    it('gives a page that changes nothing; downloading the packet prints it and makes the estimate final', async () => {
      const job = await newJob();
      await write()
        .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
        .send({
          operation_id: opId(),
          rows: [1, 2, 3].map((day) => ({
            date: companyDate(co, day - 3),
            area: 'Kitchen',
            readings: [
              { metric: 'temp_f', value: 75 },
              { metric: 'rh_pct', value: 70 - day * 10 },
              { metric: 'drywall', value: 30 - day * 5 },
            ],
          })),
        })
        .expect(201);
      await addPhotos(job.id, [
        { room: 'Kitchen', caption: 'Wet base cabinet' },
        { room: 'Hall', caption: 'Baseboard pulled' },
      ]);
      // The write key's last action is the estimate, so that undo below tries to take it back.
      const estimate = await newEstimate(job.id);
      const log = (await read().get(`/api/v1/jobs/${job.id}/drying-log?detail=readings`).expect(200)).body;

      // A read key makes the link (export_pdf is R); the documents come back in packet order.
      const link = await exportPdf(job.id, 'documents=photos&documents=estimate&documents=drying_log');
      expect(link).toMatchObject({
        job_number: job.job_number,
        documents: ['estimate', 'drying_log', 'photos'],
        estimate: { id: estimate.id, status: 'draft', total_cents: estimate.totals.total_cents },
        finalizes_estimate: true,
        photo_count: 2,
        build: null,
      });
      const lifetime = new Date(link.expires_at).getTime() - Date.now();
      expect(lifetime).toBeGreaterThan(7 * 86400_000 - 60_000);
      expect(lifetime).toBeLessThanOrEqual(7 * 86400_000);
      expect(link.url).not.toContain(co.readKey);

      const page = await fetch(local(link.url));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
      expect([page.headers.get('x-frame-options'), page.headers.get('referrer-policy')]).toEqual([
        'DENY',
        'no-referrer',
      ]);
      const html = await page.text();
      expect(html).toContain('Water mitigation');
      expect(html).toContain(money(estimate.totals.total_cents));
      expect(html).toContain('final');
      expect((await estimateOf(estimate.id)).status).toBe('draft');
      expect((await feedOf(job.job_number)).filter((e) => e.action === 'estimate.finalized')).toHaveLength(0);

      // GET never makes the PDF: a link preview cannot finalise.
      expect((await fetch(local(link.pdf_url))).status).toBe(405);
      expect((await estimateOf(estimate.id)).status).toBe('draft');

      // Queued and built, the packet changes nothing yet; the status counts its photos.
      const built = await builtPacket(link);
      expect(built).toMatchObject({ photos: { printed: 2, total: 2 }, delivered: false });
      // A new link to the same packet says it is built already, and builds nothing.
      const relinked = await exportPdf(job.id, 'documents=estimate&documents=drying_log&documents=photos');
      expect(relinked.build).toMatchObject({ id: built.id, state: 'ready', bytes: built.bytes });
      expect((await estimateOf(estimate.id)).status).toBe('draft');
      // HEAD tells the size and reads nothing: it does not finalise either.
      const head = await fetch(local(built.download_url!), { method: 'HEAD' });
      expect([
        head.status,
        Number(head.headers.get('content-length')),
        head.headers.get('accept-ranges'),
      ]).toEqual([200, built.bytes, 'bytes']);
      expect((await estimateOf(estimate.id)).status).toBe('draft');

      const pdf = await downloadPdf(link);
      expect(pdf.build.id).toBe(built.id);
      expect(pdf.text).toContain(money(estimate.totals.total_cents));
      expect(pdf.text).toContain(`Job #${job.job_number}`);
      expect(pdf.text).toContain('Wet base cabinet');
      expect(pdf.text).toContain('Baseboard pulled');
      expect(pdf.text).toContain('Maria Delgado');
      expect(pdf.text).toContain('CLM-7731');
      const gpp = log.conditions.find((c: { day: number; gpp: number | null }) => c.day === 2).gpp as number;
      expect(pdf.text).toContain(gpp.toFixed(1));
      expect(pdf.text).toMatch(/Page 1 of \d+/);
      expect(pdf.pages).toBeGreaterThanOrEqual(4);
      // The two photos, at print size: 1000 px at most (their web renditions are 1600 px wide).
      expect(pdf.pictures).toHaveLength(2);
      for (const picture of pdf.pictures)
        expect(Math.max(picture.width, picture.height)).toBeLessThanOrEqual(1000);

      const final = await estimateOf(estimate.id);
      expect(final.status).toBe('final');
      expect(final.finalized_at).not.toBeNull();
      const entries = (await feedOf(job.job_number)).filter((e) => e.action === 'estimate.finalized');
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        kind: 'estimates',
        person: { id: co.people[0].id },
        data: {
          action: 'estimate.finalized',
          estimate_id: estimate.id,
          total: { cents: estimate.totals.total_cents },
          documents: ['estimate', 'drying_log', 'photos'],
        },
      });

      // A final estimate refuses changes; undo cannot take the finalisation (nor the estimate) back.
      const refused = await write()
        .post(`/api/v1/estimates/${estimate.id}/line-items`)
        .send({
          operation_id: opId(),
          line_items: [{ description: 'More', unit: 'EA', quantity: 1, unit_price_cents: 100 }],
        })
        .expect(409);
      expect(refused.body.code).toBe('invalid_state');
      const undo = await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(409);
      expect(undo.body.code).toBe('undo_not_possible');
      expect((await estimateOf(estimate.id)).status).toBe('final');

      // Downloading again sends the same file (its finalisation is no change to the packet) and
      // writes no second entry.
      const again = await downloadPdf(link);
      expect(again.build).toMatchObject({ id: built.id, delivered: true });
      expect(again.text).toContain(money(estimate.totals.total_cents));
      expect((await feedOf(job.job_number)).filter((e) => e.action === 'estimate.finalized')).toHaveLength(1);
      expect((await exportPdf(job.id, 'documents=estimate')).finalizes_estimate).toBe(false);
    });

    it("refuses a download POSTed from another site's page, and finalises nothing", async () => {
      const job = await newJob();
      const estimate = await newEstimate(job.id);
      const link = await exportPdf(job.id, 'documents=estimate');
      const refused = await fetch(local(link.pdf_url), {
        method: 'POST',
        headers: { Origin: 'https://evil.example' },
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'forbidden_origin' });
      expect((await estimateOf(estimate.id)).status).toBe('draft');
      expect(
        (await fetch(local(link.pdf_url), { method: 'POST', headers: { Origin: new URL(t.url).origin } }))
          .status,
      ).toBe(202);
    });

    it('leaves the estimate a draft when the client goes away before the whole PDF is sent, and finalises a download resumed to its end', async () => {
      const job = await newJob();
      // Pictures of noise make a PDF of megabytes: more than a connection holds unread here (a
      // 4 MiB send buffer at most).
      await addNoisyPhotos(job.id, 16);
      const estimate = await newEstimate(job.id);
      const link = await exportPdf(job.id, 'documents=estimate&documents=photos');
      const build = await builtPacket(link);
      expect(build.bytes).toBeGreaterThan(5.5 * 1024 * 1024);
      await abandonDownload(local(build.download_url!));
      // The server has long noticed (a whole download takes well under this).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect((await estimateOf(estimate.id)).status).toBe('draft');
      expect((await feedOf(job.job_number)).filter((e) => e.action === 'estimate.finalized')).toHaveLength(0);

      // A download in two ranges: the first half leaves a draft, the rest completes it.
      const half = Math.floor(build.bytes! / 2);
      const first = await fetch(local(build.download_url!), {
        headers: { Range: `bytes=0-${half - 1}`, 'If-Range': `"${build.id}"` },
      });
      expect([first.status, first.headers.get('content-range')]).toEqual([
        206,
        `bytes 0-${half - 1}/${build.bytes}`,
      ]);
      const head = Buffer.from(await first.arrayBuffer());
      expect((await estimateOf(estimate.id)).status).toBe('draft');
      // A range that does not follow what was sent completes nothing.
      await (
        await fetch(local(build.download_url!), { headers: { Range: `bytes=${half + 10}-` } })
      ).arrayBuffer();
      expect((await estimateOf(estimate.id)).status).toBe('draft');
      // If-Range naming another version of the file answers the whole file.
      const stale = await fetch(local(build.download_url!), {
        method: 'HEAD',
        headers: { Range: `bytes=${half}-`, 'If-Range': '"pkb_other"' },
      });
      expect(stale.status).toBe(200);
      const rest = await fetch(local(build.download_url!), { headers: { Range: `bytes=${half}-` } });
      expect(rest.status).toBe(206);
      const file = path.join(scratch, `${opId()}.pdf`);
      await writeFile(file, Buffer.concat([head, Buffer.from(await rest.arrayBuffer())]));
      expect(readPdf(file).text).toContain('Final estimate');
      await deliveredBuild(build);
      expect((await estimateOf(estimate.id)).status).toBe('final');
      expect((await feedOf(job.job_number)).filter((e) => e.action === 'estimate.finalized')).toHaveLength(1);
    }, 90_000); // a packet of megabytes of noise, built and sent several times: about 21 s alone, past 30 s on CI's two loaded cores

    it('builds once for downloads asked at once, and finalises once', async () => {
      const job = await newJob();
      const estimate = await newEstimate(job.id);
      const link = await exportPdf(job.id, 'documents=estimate');
      const { pathname, search } = new URL(link.pdf_url);
      const asked = await atOnce(
        t,
        Array.from({ length: 4 }, () => () => t.http.post(`${pathname}${search}`)),
      );
      expect(asked.map((res) => res.status)).toEqual([202, 202, 202, 202]);
      expect(new Set(asked.map((res) => res.body.id)).size).toBe(1);
      const build = await builtPacket(link);
      expect(build.id).toBe(asked[0].body.id);
      const file = new URL(build.download_url!);
      const answers = await atOnce(
        t,
        Array.from({ length: 4 }, () => () => t.http.get(`${file.pathname}${file.search}`)),
      );
      expect(answers.map((res) => [res.status, res.headers['content-type']])).toEqual(
        Array(4).fill([200, 'application/pdf']),
      );
      await deliveredBuild(build);
      expect((await feedOf(job.job_number)).filter((e) => e.action === 'estimate.finalized')).toHaveLength(1);
      expect((await estimateOf(estimate.id)).status).toBe('final');
    });

    it('builds the packet again when the job changed since it was built', async () => {
      const job = await newJob();
      const estimate = await newEstimate(job.id);
      const link = await exportPdf(job.id, 'documents=estimate');
      const old = await builtPacket(link);
      await write()
        .post(`/api/v1/estimates/${estimate.id}/line-items`)
        .send({
          operation_id: opId(),
          line_items: [{ description: 'Dehumidifier', unit: 'DA', quantity: 3, unit_price_cents: 7500 }],
        })
        .expect(200);
      const changed = await estimateOf(estimate.id);
      // The old file is not sent: it no longer shows the estimate.
      const refused = await fetch(local(old.download_url!));
      expect(refused.status).toBe(409);
      expect((await refused.json()).code).toBe('packet_outdated');
      expect((await estimateOf(estimate.id)).status).toBe('draft');
      // Its status answers the build that replaces it; a new Download finds that one too.
      const next = (await (await fetch(local(old.status_url))).json()) as PacketBuild;
      expect(next.id).not.toBe(old.id);
      const pdf = await downloadPdf(link);
      expect(pdf.build.id).toBe(next.id);
      expect(pdf.text).toContain(money(changed.totals.total_cents));
      expect((await estimateOf(estimate.id)).status).toBe('final');
    });

    it("answers unknown builds, another packet's build and unbuilt files with clear problems", async () => {
      const job = await newJob();
      await addPhotos(job.id, [{ room: 'Kitchen', caption: 'One' }]);
      const photos = await exportPdf(job.id, 'documents=photos');
      const build = await builtPacket(photos);
      const unknown = await fetch(local(build.status_url).replace(build.id, 'pkb_000000000000'));
      expect([unknown.status, (await unknown.json()).code]).toEqual([404, 'not_found']);
      const beyond = await fetch(local(build.download_url!), {
        headers: { Range: `bytes=${build.bytes! + 5}-` },
      });
      expect(beyond.status).toBe(416);
      // Another packet's link (other documents) cannot reach this build.
      await newEstimate(job.id);
      const other = await exportPdf(job.id, 'documents=estimate');
      const theirs = new URL(local(other.pdf_url));
      const crossed = await fetch(
        `${t.url}${theirs.pathname.replace('.pdf', '')}/builds/${build.id}${theirs.search}`,
      );
      expect(crossed.status).toBe(404);
      const altered = local(build.download_url!).replace(
        /([?&]s=)./,
        (_m, head: string) => `${head}${build.download_url!.includes('s=A') ? 'B' : 'A'}`,
      );
      expect((await fetch(altered, { headers: { Accept: 'application/json' } })).status).toBe(403);
    });

    it('a packet without the estimate finalises nothing', async () => {
      const job = await newJob();
      const estimate = await newEstimate(job.id);
      await addPhotos(job.id, [{ room: 'Kitchen', caption: 'Only photos' }]);
      const link = await exportPdf(job.id, 'documents=photos');
      expect(link).toMatchObject({ estimate: null, finalizes_estimate: false });
      const pdf = await downloadPdf(link);
      expect(pdf.text).toContain('Only photos');
      expect(pdf.text).not.toContain(money(estimate.totals.total_cents));
      expect((await estimateOf(estimate.id)).status).toBe('draft');
    });

    it("refuses what it cannot print, another company's job or estimate, and bad parameters", async () => {
      const job = await newJob();
      expect(
        (await read().get(`/api/v1/jobs/${job.id}/export-pdf?documents=estimate`).expect(404)).body.detail,
      ).toContain('no estimate');
      expect(
        (await read().get(`/api/v1/jobs/${job.id}/export-pdf?documents=drying_log`).expect(404)).body.detail,
      ).toContain('no drying log');
      await read().get(`/api/v1/jobs/${job.id}/export-pdf`).expect(400);
      await read().get(`/api/v1/jobs/${job.id}/export-pdf?documents=invoice`).expect(400);
      await read().get(`/api/v1/jobs/${job.id}/export-pdf?documents=photos&expires_in=59`).expect(400);
      await read().get(`/api/v1/jobs/${job.id}/export-pdf?documents=photos&expires_in=2592001`).expect(400);
      const short = await exportPdf(job.id, 'documents=photos&expires_in=60');
      expect(new Date(short.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(60_000);
      const theirs = await newJob(other);
      const theirEstimate = await newEstimate(theirs.id, other);
      await read().get(`/api/v1/jobs/${theirs.id}/export-pdf?documents=photos`).expect(404);
      await newEstimate(job.id);
      await read()
        .get(`/api/v1/jobs/${job.id}/export-pdf?documents=estimate&estimate_id=${theirEstimate.id}`)
        .expect(404);
    });

    it('answers altered, expired and revoked links with 403/410, as a page for browsers', async () => {
      const job = await newJob();
      const link = await exportPdf(job.id, 'documents=photos');
      const altered = local(link.url).replace(
        /([?&]s=)./,
        (_m, head: string) => `${head}${link.url.includes('s=A') ? 'B' : 'A'}`,
      );
      const problem = await fetch(altered, { headers: { Accept: 'application/json' } });
      expect(problem.status).toBe(403);
      expect((await problem.json()).code).toBe('link_invalid');
      const browser = await fetch(altered, { headers: { Accept: 'text/html' } });
      expect(browser.status).toBe(403);
      expect(await browser.text()).toContain('This link does not work');
      expect((await fetch(altered.replace('/packet?', '/packet.pdf?'), { method: 'POST' })).status).toBe(403);

      const query = await personLinkQuery(
        t.media.links,
        {
          purpose: 'export_pdf',
          companyId: co.id,
          keyId: await keyIdOf(co.readKey),
          jobId: job.id,
          params: { d: 'photos', est: '' },
          expires: Math.floor(Date.now() / 1000) - 5,
        },
        ['d', 'est'],
      );
      const expired = await fetch(`${t.url}/exports/${job.id}/packet?${query}`, {
        headers: { Accept: 'text/html' },
      });
      expect(expired.status).toBe(410);
      expect(await expired.text()).toContain('This link has expired');

      const key = (
        await t.http
          .post(`/admin/v1/companies/${co.id}/keys`)
          .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
          .send({ person_id: co.people[1].id, scope: 'read' })
          .expect(201)
      ).body;
      const revocable = await exportPdf(job.id, 'documents=photos', key.key);
      expect((await fetch(local(revocable.url))).status).toBe(200);
      await t.http
        .delete(`/admin/v1/keys/${key.id}`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .expect(204);
      expect((await fetch(local(revocable.url), { headers: { Accept: 'application/json' } })).status).toBe(
        403,
      );
    });
  });

  describe('export_job_photos', () => {
    function unzip(zip: Buffer, name: string): Promise<string> {
      const dir = path.join(scratch, name);
      return writeFile(`${dir}.zip`, zip).then(() => {
        execFileSync('unzip', ['-q', `${dir}.zip`, '-d', dir]);
        return dir;
      });
    }

    async function fetchZip(link: PhotoExport): Promise<Buffer> {
      const res = await fetch(local(link.url));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/zip');
      return Buffer.from(await res.arrayBuffer());
    }

    it('zips the originals by room without their location, with a manifest', async () => {
      const job = await newJob();
      const photos = await addPhotos(job.id, [
        { room: 'Kitchen', caption: 'Under sink', gps: true, taken: '2026-11-20T14:03:05' },
        { room: 'Kitchen', caption: 'Under sink', taken: '2026-11-20T14:03:05' },
        { room: 'Hall', name: 'IMG_0042.JPG', taken: '2026-11-21T08:00:00' },
        { taken: '2026-11-22T09:30:00' },
      ]);
      const link = (await read().get(`/api/v1/jobs/${job.id}/photos/export`).expect(200)).body as PhotoExport;
      expect(link).toMatchObject({
        job_number: job.job_number,
        room: null,
        photo_count: 4,
        file_name: `job-${job.job_number}-photos.zip`,
      });
      const dir = await unzip(await fetchZip(link), 'all');
      expect((await readdir(dir)).sort()).toEqual(['Hall', 'Kitchen', 'Unsorted', 'manifest.csv']);
      expect((await readdir(path.join(dir, 'Kitchen'))).sort()).toEqual([
        '2026-11-20 14-03-05 Under sink (2).jpg',
        '2026-11-20 14-03-05 Under sink.jpg',
      ]);
      expect(await readdir(path.join(dir, 'Hall'))).toEqual(['2026-11-21 08-00-00 IMG_0042.jpg']);
      expect(await readdir(path.join(dir, 'Unsorted'))).toEqual(['2026-11-22 09-30-00 p3.jpg']);

      const manifest = (await readFile(path.join(dir, 'manifest.csv'), 'utf8'))
        .trim()
        .split('\r\n')
        .map((line) => line.split(','));
      expect(manifest[0]).toEqual([
        'file',
        'room',
        'caption',
        'name',
        'taken_at',
        'taken_at_source',
        'uploaded_by',
        'taken_on_site_by',
        'photo_id',
        'sha256',
        'original_sha256',
        'location_removed',
      ]);
      expect(manifest).toHaveLength(5);
      for (const line of manifest.slice(1)) {
        const content = await readFile(path.join(dir, line[0]));
        expect(createHash('sha256').update(content).digest('hex')).toBe(line[9]);
        expect(await exifr.gps(content)).toBeUndefined();
        const photo = photos.find((p) => p.id === line[8])!;
        expect(line[10]).toBe(photo.sha256);
        expect(line[11]).toBe(line[9] === line[10] ? 'no' : 'yes');
        expect([line[6], line[7]]).toEqual([co.people[0].name, co.people[0].name]);
      }
      const located = manifest.find((line) => line[8] === photos[0].id)!;
      expect(located[11]).toBe('yes');
      // Only the location went: the picture and its time are the ones uploaded.
      const kept = await exifr.parse(await readFile(path.join(dir, located[0])), { reviveValues: false });
      expect(kept.DateTimeOriginal).toBe('2026:11:20 14:03:05');
    });

    it('takes the location out of a photo stored before exports did so, once, when first zipped', async () => {
      const job = await newJob();
      const [photo] = await addPhotos(job.id, [{ room: 'Kitchen', gps: true }]);
      // As a photo uploaded before migration 011 is: not looked at, no copy without location.
      await t
        .db('stored_files')
        .where({ company_id: co.id, sha256: photo.sha256 })
        .update({ shareable_sha256: null });
      await t.media.files.delete([`${co.id}/photos/${photo.sha256}/shareable`]);
      const link = (await read().get(`/api/v1/jobs/${job.id}/photos/export`).expect(200)).body as PhotoExport;
      const dir = await unzip(await fetchZip(link), 'before-011');
      const [file] = await readdir(path.join(dir, 'Kitchen'));
      const content = await readFile(path.join(dir, 'Kitchen', file));
      expect(await exifr.gps(content)).toBeUndefined();
      const kept = await t
        .db('stored_files')
        .where({ company_id: co.id, sha256: photo.sha256 })
        .first('shareable_sha256');
      expect(kept.shareable_sha256).toBe(createHash('sha256').update(content).digest('hex'));
      expect(await t.media.files.size(`${co.id}/photos/${photo.sha256}/shareable`)).toBe(content.length);
    });

    it('zips one room or chosen photos; refuses both, unknown rooms and photos of other jobs', async () => {
      const job = await newJob();
      const photos = await addPhotos(job.id, [{ room: 'Kitchen' }, { room: 'Hall' }, { room: 'Hall' }]);
      const hall = (await read().get(`/api/v1/jobs/${job.id}/photos/export?room=hall`).expect(200))
        .body as PhotoExport;
      expect(hall).toMatchObject({
        room: 'Hall',
        photo_count: 2,
        file_name: `job-${job.job_number}-photos-hall.zip`,
      });
      expect((await readdir(await unzip(await fetchZip(hall), 'hall'))).sort()).toEqual([
        'Hall',
        'manifest.csv',
      ]);
      const chosen = (
        await read()
          .get(`/api/v1/jobs/${job.id}/photos/export?photo_ids=${photos[0].id}&photo_ids=${photos[2].id}`)
          .expect(200)
      ).body as PhotoExport;
      expect(chosen.photo_count).toBe(2);
      const chosenDir = await unzip(await fetchZip(chosen), 'chosen');
      expect((await readdir(chosenDir)).sort()).toEqual(['Hall', 'Kitchen', 'manifest.csv']);

      await read()
        .get(`/api/v1/jobs/${job.id}/photos/export?room=Hall&photo_ids=${photos[0].id}`)
        .expect(400);
      expect(
        (await read().get(`/api/v1/jobs/${job.id}/photos/export?room=Attic`).expect(404)).body.detail,
      ).toContain('Attic');
      const elsewhere = await newJob();
      const theirs = await addPhotos(elsewhere.id, [{}]);
      await read().get(`/api/v1/jobs/${job.id}/photos/export?photo_ids=${theirs[0].id}`).expect(404);
      await read(other).get(`/api/v1/jobs/${job.id}/photos/export`).expect(404);
      const altered = local(hall.url)
        .replace('photos-hall.zip', 'photos-hall.zip')
        .replace(/r=Hall/, 'r=Kitchen');
      expect((await fetch(altered, { headers: { Accept: 'application/json' } })).status).toBe(403);
    });
  });

  describe('exports over MCP', () => {
    it('answer with resource links, never the file', async () => {
      const job = await newJob();
      await newEstimate(job.id);
      await addPhotos(job.id, [{ room: 'Kitchen' }]);
      const client = await connectMcp(t, co.readKey);
      try {
        const pdf = (await client.callTool({
          name: 'export_pdf',
          arguments: { job_id: job.job_number, documents: ['estimate', 'photos'] },
        })) as CallToolResult;
        expect(pdf.isError).toBeFalsy();
        const pdfLink = pdf.content.find((block) => block.type === 'resource_link');
        expect(pdfLink).toMatchObject({
          type: 'resource_link',
          uri: (pdf.structuredContent as PdfExport).url,
          mimeType: 'text/html',
        });
        const zip = (await client.callTool({
          name: 'export_job_photos',
          arguments: { job_id: job.job_number },
        })) as CallToolResult;
        const zipLink = zip.content.find((block) => block.type === 'resource_link');
        expect(zipLink).toMatchObject({
          type: 'resource_link',
          uri: (zip.structuredContent as PhotoExport).url,
          mimeType: 'application/zip',
          name: `job-${job.job_number}-photos.zip`,
        });
        expect(JSON.stringify([pdf, zip]).length).toBeLessThan(10_000);
      } finally {
        await client.close();
      }
    });
  });
});
