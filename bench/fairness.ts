/**
 * `npm run bench:fairness`: does one company saturating its own rate limits slow another
 * company down? The service runs with its default limits. A quiet company reads jobs at a steady
 * 8 requests a second (one every 125 ms, each sent on time whether or not the one before has
 * answered) alone, then while a noisy company sends find_jobs over HTTP and JSON-RPC batches of 50
 * find_jobs calls over MCP on 8 connections each. autocannon's rate sends each connection's
 * quota for a second at once, at the start of the second: the noisy company comes in bursts,
 * which is the worst case for its neighbours, but the quiet company is paced by this script,
 * since bursts of its own would measure its own queueing.
 * - saturating: 30 HTTP requests and 2 batches a second, several times what its limits allow;
 * - hammering: as fast as the load generator can, which on this 2-core machine also takes the
 *   CPU the service and the quiet company's requests need.
 * Then the noisy company's heavy work, the quiet company reading for as long as it lasts: 6
 * parallel uploads of 100 MB videos, and 20 parallel OCRs of 3 scanned pages (target for both:
 * the quiet company's p95 at most 2× alone). Last, the noisy company queues 200 OCR pages and
 * the quiet company asks for one: its wait against one page alone (target: at most 2 s more).
 * Reports the quiet company's p50/p95 in each phase and what the noisy company got.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { pdfOf, scansOf } from '../test/support/document-files';
import { pageLines, readDocument, scannedPdf, uploadDocument } from './document-calls';
import { openDatabase } from '../src/infrastructure/db/connect';
import { loadDataset } from './dataset';
import { percentile } from './measure';
import {
  createJob,
  createWriteKey,
  databaseEnv,
  freePort,
  freshDatabase,
  startProcess,
  stopProcess,
} from './service';
import { migrateToLatest } from '../src/database';

const QUIET_RATE = 8;
const VIDEO_UPLOADS = 6;
const OCR_UPLOADS = 20;
const run = promisify(execFile);
const SECONDS = 15;
const FLOOD_CONNECTIONS = 8;
const BATCH = 50;

interface Outcome {
  latencies: number[];
  statuses: Map<number, number>;
}

function load(options: autocannon.Options): Promise<Outcome> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error) =>
      error ? reject(error) : resolve({ latencies, statuses }),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      latencies.push(ms);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
  });
}

/** Sends `count` GETs, one every `everyMs`, without waiting for answers (an open loop); fewer once `over` says so. */
async function paced(
  count: number,
  everyMs: number,
  urlOf: () => string,
  key: string,
  over: () => boolean = () => false,
): Promise<Outcome> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const start = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < count && !over(); i++) {
    const due = start + i * everyMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const began = performance.now();
    sent.push(
      fetch(urlOf(), { headers: { authorization: `Bearer ${key}` } }).then(async (response) => {
        await response.arrayBuffer();
        latencies.push(performance.now() - began);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(sent);
  return { latencies, statuses };
}

const summary = (outcome: Outcome) => {
  const sorted = [...outcome.latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    statuses: Object.fromEntries(outcome.statuses),
  };
};

async function main(): Promise<void> {
  const target = await freshDatabase(process.env.DATABASE_URL ? 'postgres' : 'pglite');
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir ?? null });
  await migrateToLatest(db);
  const data = await loadDataset(db, 2000, () => undefined);
  await db.destroy();

  const port = await freePort();
  const work = mkdtempSync(path.join(os.tmpdir(), 'jms-bench-fairness-'));
  const adminToken = randomUUID();
  const service = await startProcess('src/main.ts', port, {
    ...databaseEnv(target),
    FILES_DIR: path.join(work, 'files'),
    DEMO_SEED: 'false',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: adminToken,
  });
  const url = `http://127.0.0.1:${port}`;
  const [quiet, noisy] = data.companies;
  let next = 0;
  const jobUrl = () => `${url}/api/v1/jobs/${data.sample[next++ % data.sample.length].id}`;
  const quietLoad = () => paced(SECONDS * QUIET_RATE, 1000 / QUIET_RATE, jobUrl, quiet.readKey);
  try {
    const alone = summary(await quietLoad());
    const batch = JSON.stringify(
      Array.from({ length: BATCH }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'find_jobs', arguments: { q: 'a', limit: 25 } },
      })),
    );
    const flood = async (rates: { http?: number; batches?: number }) => {
      const [beside, http, mcp] = await Promise.all([
        quietLoad(),
        load({
          url: `${url}/api/v1/jobs?q=a&limit=25`,
          connections: FLOOD_CONNECTIONS,
          overallRate: rates.http,
          duration: SECONDS,
          headers: { authorization: `Bearer ${noisy.readKey}` },
        }),
        load({
          url: `${url}/mcp`,
          method: 'POST',
          connections: FLOOD_CONNECTIONS,
          overallRate: rates.batches,
          duration: SECONDS,
          body: batch,
          headers: {
            authorization: `Bearer ${noisy.writeKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-03-26',
          },
        }),
      ]);
      const quietThen = summary(beside);
      return {
        quiet: quietThen,
        p95Ratio: Math.round((quietThen.p95 / Math.max(1, alone.p95)) * 100) / 100,
        noisyHttp: summary(http),
        noisyMcpBatchesOf50: summary(mcp),
      };
    };
    const saturating = await flood({ http: 30, batches: 2 });
    const hammering = await flood({});
    console.log(JSON.stringify({ quietAlone: alone, saturating, hammering }, null, 2));

    // Heavy work of a third company (the noisy one's keys are still at their limits): the quiet
    // company's reads for as long as it lasts.
    const heavy = await createWriteKey(url, adminToken, 'Heavy Restoration');
    const beside = async (work: Promise<unknown>) => {
      let done = false;
      const busy = work.finally(() => (done = true));
      const quietThen = summary(
        await paced(600 * QUIET_RATE, 1000 / QUIET_RATE, jobUrl, quiet.readKey, () => done),
      );
      await busy;
      return { quiet: quietThen, p95Ratio: Math.round((quietThen.p95 / Math.max(1, alone.p95)) * 100) / 100 };
    };
    const videos = await bigVideos(work, VIDEO_UPLOADS);
    const started = performance.now();
    const uploads = await beside(
      Promise.all(videos.map(async (file) => uploadVideo(url, heavy, await createJob(url, heavy), file))),
    );
    report(
      '6 parallel 100 MB video uploads',
      uploads,
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const scans = await distinctScans(OCR_UPLOADS, 3);
    const ocr = await beside(
      Promise.all(
        scans.map(async (pdf) =>
          readWhole(url, heavy, await uploadDocument(url, heavy, await createJob(url, heavy), pdf), 3),
        ),
      ),
    );
    report('20 parallel OCRs of 3 scanned pages', ocr);

    console.log(JSON.stringify(await ocrWait(url, quiet.writeKey, heavy), null, 2));
  } finally {
    await stopProcess(service);
    await target.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

function report(
  name: string,
  outcome: { quiet: ReturnType<typeof summary>; p95Ratio: number },
  took = '',
): void {
  console.log(
    `${name}${took ? ` (${took})` : ''}: the other company's get_job p50 ${outcome.quiet.p50.toFixed(1)} ms, p95 ${outcome.quiet.p95.toFixed(1)} ms, ${outcome.p95Ratio}× its p95 alone (target ≤ 2×); ${JSON.stringify(outcome.quiet.statuses)}`,
  );
}

/**
 * Company A queues 200 OCR pages (20 scanned PDFs of 10 pages); company B then asks for one page.
 * B's wait against one page's OCR alone, measured first (target: at most that plus 2 s).
 */
async function ocrWait(url: string, keyB: string, keyA: string) {
  const onePage = async (tag: string) => {
    const id = await uploadDocument(url, keyB, await createJob(url, keyB), await scannedPdf(1, tag));
    const started = performance.now();
    await readWhole(url, keyB, id, 1);
    return (performance.now() - started) / 1000;
  };
  const alone = await onePage('quiet alone');
  const documents = await Promise.all(
    (await distinctScans(20, 10)).map(async (pdf) =>
      uploadDocument(url, keyA, await createJob(url, keyA), pdf),
    ),
  );
  for (const id of documents) await readDocument(url, keyA, id, 'page_count=10&wait_seconds=0');
  const behind200 = await onePage('quiet behind 200');
  return {
    onePageAloneSeconds: alone,
    onePageBehind200PagesOfAnotherCompanySeconds: behind200,
    target: `≤ ${(alone + 2).toFixed(1)} s`,
    met: behind200 <= alone + 2,
  };
}

/** Reads a document until every one of its `pages` is read (OCR included). */
async function readWhole(url: string, key: string, id: string, pages: number): Promise<void> {
  while ((await readDocument(url, key, id, `page_count=${pages}&wait_seconds=25`)).pending.length > 0);
}

/** `count` scanned PDFs of `pages` pages, each new content: the first page carries the PDF's tag, the others are rendered once. */
async function distinctScans(count: number, pages: number): Promise<Buffer[]> {
  const common = await scansOf(
    Array.from({ length: pages - 1 }, (_, i) => pageLines(i + 1, 30)),
    300,
  );
  const firsts = await scansOf(
    Array.from({ length: count }, (_, i) => [`noisy document ${i + 1}`, ...pageLines(0, 30)]),
    300,
  );
  return firsts.map((first) => pdfOf([first, ...common].map((scan) => ({ scan }))));
}

/** `count` different MP4s of about 100 MB (noise at 40 Mbit/s for 20 s, remuxed with a comment each), in `dir`. */
async function bigVideos(dir: string, count: number): Promise<string[]> {
  const source = path.join(dir, 'noise.mp4');
  const ffmpeg = (args: string[]) => run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args]);
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=20:size=640x480:rate=30,noise=alls=80:allf=t+u',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-b:v',
    '40M',
    '-maxrate',
    '40M',
    '-bufsize',
    '20M',
    source,
  ]);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const out = path.join(dir, `video-${i}.mp4`);
      await ffmpeg(['-i', source, '-c', 'copy', '-metadata', `comment=upload ${i}`, out]);
      return out;
    }),
  );
}

async function uploadVideo(url: string, key: string, jobId: string, file: string): Promise<void> {
  const form = new FormData();
  form.append('meta', JSON.stringify({ operation_id: randomUUID() }));
  form.append('video', await openAsBlob(file), 'walkthrough.mp4');
  const res = await fetch(`${url}/api/v1/jobs/${jobId}/videos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload_job_videos: ${res.status} ${await res.text()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
