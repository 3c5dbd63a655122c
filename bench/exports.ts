/**
 * `npm run bench:exports`: the exports measured from outside, against the service started as in
 * production (PGlite by default, `--db postgres` for the local server), files on local disk:
 *   - a packet of an estimate of 40 lines, a 30-day drying log of 6 areas and 100 photos: the time
 *     to build it, the time to the first byte of the built file and to its end, the service's peak
 *     RSS, and the slowest get_job answered while it is built (the event loop stays free);
 *   - 20 downloads at once of a photos-only packet of 300 photos, each as a program does it (POST
 *     the link, poll the build, GET the file): all 20 delivered, one build, the first byte of the
 *     built file (target < 100 ms), the RSS rise (target < 300 MB) and the temp directory's peak;
 *   - a ZIP of 300 photos of about 3.3 MB (about 1 GB, with GPS, so the ZIP holds the copies
 *     without location): throughput against reading the same files from storage to /dev/null in
 *     the same run (target ≥ 50%), and the RSS rise (flat).
 */
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { jpegWith } from '../test/support/photo-files';
import { peakDuring } from './memory';
import { START_DATE } from './drying';
import {
  createJob,
  createWriteKey,
  databaseEnv,
  freePort,
  freshDatabase,
  startProcess,
  stopProcess,
  UNPACED,
} from './service';
import { openFileStore } from '../src/infrastructure/files/open-store';

const ADMIN_TOKEN = randomUUID();
const run = promisify(execFile);
const MB = 1024 * 1024;
const AREAS = ['Kitchen', 'Hall', 'Living room', 'Bedroom 1', 'Bedroom 2', 'Bath'];
const DOWNLOADS = 20;

/** Prints a target's outcome; a missed one fails the bench. */
function judge(target: string, met: boolean): void {
  console.log(`${met ? 'met   ' : 'MISSED'} ${target}`);
  if (!met) process.exitCode = 1;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string', default: 'pglite' } } });
  const target = await freshDatabase(values.db === 'postgres' ? 'postgres' : 'pglite');
  const work = mkdtempSync(path.join(os.tmpdir(), 'jms-bench-exports-'));
  const filesDir = path.join(work, 'files');
  const tempDir = path.join(work, 'tmp');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = await startProcess('src/main.ts', port, {
    ...databaseEnv(target),
    FILES_DIR: filesDir,
    TEMP_DIR: tempDir,
    ADMIN_TOKEN,
    DEMO_SEED: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_BURST: '10000',
    UPLOAD_MB_PER_SECOND: UNPACED,
  });
  const api = (key: string) => async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  try {
    const key = await createWriteKey(base, ADMIN_TOKEN, 'Export bench', 5);
    const call = api(key);

    // The packet's job: 40 lines over 4 rooms, 30 days × 6 areas of readings, 100 photos.
    const jobId = await createJob(base, key);
    const rooms = AREAS.slice(0, 4).map((name) => ({ name, length: 12, width: 10, height: 8 }));
    const lines = Array.from({ length: 40 }, (_, i) => ({
      description: `Line ${i + 1}`,
      room: rooms[i % 4].name,
      unit: 'SF',
      quantity: 10 + i,
      unit_price_cents: 99 + i * 7,
    }));
    await call('POST', `/api/v1/jobs/${jobId}/estimates`, {
      operation_id: randomUUID(),
      label: 'Bench estimate',
      rooms,
      line_items: lines,
    });
    await call('POST', `/api/v1/jobs/${jobId}/drying-log`, {
      operation_id: randomUUID(),
      rooms: AREAS.map((name) => ({ name })),
      planned_days: 30,
      start_date: START_DATE,
    });
    for (const area of AREAS) {
      const rows = Array.from({ length: 30 }, (_, d) => ({
        day: d + 1,
        area,
        readings: [
          { metric: 'temp_f', value: 72 + (d % 5) },
          { metric: 'rh_pct', value: Math.max(30, 80 - d * 2) },
          { metric: 'drywall', value: Math.max(10, 40 - d) },
        ],
      }));
      await call('POST', `/api/v1/jobs/${jobId}/drying-log/readings`, { operation_id: randomUUID(), rows });
    }
    const smallPhotos = await photoSet(20, 4000, 3000, 'packet');
    for (let i = 0; i < 5; i++)
      await upload(
        base,
        key,
        jobId,
        smallPhotos.map((p) => Buffer.concat([p, Buffer.from(`#${i}`)])),
        AREAS[i],
      );
    console.log('packet job ready: 40 lines, 6 areas × 30 days, 100 photos');

    const packet = await call(
      'GET',
      `/api/v1/jobs/${jobId}/export-pdf?documents=estimate&documents=drying_log&documents=photos`,
    );
    const pdfFile = path.join(work, 'packet.pdf');
    const built = await whileMeasuringGetJob(base, key, jobId, () =>
      peakDuring(service.pid!, () => buildAndDownload(base, packet.pdf_url, pdfFile)),
    );
    const pages = /Pages:\s+(\d+)/.exec((await run('pdfinfo', [pdfFile])).stdout)?.[1];
    const one = built.result.result;
    console.log(
      `packet (40 lines, 6×30 readings, 100 photos, ${pages} pages): built in ${one.buildMs.toFixed(0)} ms, then first byte ${one.firstByteMs.toFixed(0)} ms, whole file ${one.downloadMs.toFixed(0)} ms, ${(one.bytes / MB).toFixed(1)} MB; RSS ${built.result.before} → peak ${built.result.peak} MB; slowest get_job meanwhile ${built.slowestMs.toFixed(0)} ms (${built.calls} calls)`,
    );

    // 300 photos of about 3.3 MB with GPS, for the ZIP and a photos-only packet.
    const zipJob = await createJob(base, key);
    const bigPhotos = await photoSet(30, 2400, 1800, 'zip');
    for (let i = 0; i < 10; i++)
      await upload(
        base,
        key,
        zipJob,
        bigPhotos.map((p) => Buffer.concat([p, Buffer.from(`#${i}`)])),
        AREAS[i % 6],
      );
    console.log(
      `zip job ready: 300 photos, ${((bigPhotos.reduce((n, p) => n + p.length, 0) * 10) / MB).toFixed(0)} MB`,
    );

    const photosPacket = await call('GET', `/api/v1/jobs/${zipJob}/export-pdf?documents=photos`);
    const temp = tempPeak(tempDir);
    const many = await peakDuring(service.pid!, () =>
      Promise.all(Array.from({ length: DOWNLOADS }, () => buildAndDownload(base, photosPacket.pdf_url))),
    );
    const tempPeakMb = temp.stop();
    const results = many.result;
    const firstBytes = results.map((r) => r.firstByteMs).sort((a, b) => a - b);
    const delivered = results.filter((r) => r.bytes === r.expectedBytes).length;
    const builds = new Set(results.map((r) => r.buildId)).size;
    console.log(
      `${DOWNLOADS} downloads at once of a packet of 300 photos: ${delivered} of ${DOWNLOADS} delivered whole, ${builds} build (${(Math.max(...results.map((r) => r.buildMs)) / 1000).toFixed(1)} s), ${(results[0].bytes / MB).toFixed(1)} MB each; first byte of the built file p50 ${firstBytes[Math.floor(DOWNLOADS / 2)].toFixed(0)} ms, worst ${firstBytes[DOWNLOADS - 1].toFixed(0)} ms; all done in ${many.seconds.toFixed(1)} s; RSS ${many.before} → peak ${many.peak} MB (rise ${many.peak - many.before} MB); temp directory peak ${tempPeakMb.toFixed(0)} MB`,
    );
    judge(`all ${DOWNLOADS} delivered`, delivered === DOWNLOADS);
    judge('first byte of a built packet < 100 ms', firstBytes[DOWNLOADS - 1] < 100);
    judge('RSS rise < 300 MB', many.peak - many.before < 300);

    // The faster of the store's default reads and the ZIP's 1 MiB ones is the bar.
    const keys = await storedKeysOf(call, zipJob, filesDir);
    const [small, large] = [await timedRead(filesDir, keys), await timedRead(filesDir, keys, MB)];
    const raw = small.mb / small.seconds >= large.mb / large.seconds ? small : large;
    console.log(
      `reading the files in 64 KiB reads: ${(small.mb / small.seconds).toFixed(0)} MB/s; in 1 MiB reads: ${(large.mb / large.seconds).toFixed(0)} MB/s`,
    );
    const zip = await call('GET', `/api/v1/jobs/${zipJob}/photos/export`);
    const zipped = await peakDuring(service.pid!, () =>
      download(zip.url.replace(/^https?:\/\/[^/]+/, base), 'GET'),
    );
    const zipRate = zipped.result.bytes / MB / zipped.seconds;
    console.log(
      `reading the 300 files from the store to /dev/null: ${raw.mb.toFixed(0)} MB at ${(raw.mb / raw.seconds).toFixed(0)} MB/s`,
    );
    console.log(
      `ZIP of 300 photos: ${(zipped.result.bytes / MB).toFixed(0)} MB at ${zipRate.toFixed(0)} MB/s (${((100 * zipRate) / (raw.mb / raw.seconds)).toFixed(0)}% of reading, target ≥ 50%); RSS ${zipped.before} → peak ${zipped.peak} MB (rise ${zipped.peak - zipped.before} MB)`,
    );
  } finally {
    await stopProcess(service);
    await target.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Distinct JPEGs with GPS, of noisy content (so they stay large, as phone photos are). */
async function photoSet(count: number, width: number, height: number, tag: string): Promise<Buffer[]> {
  const noise = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: { r: 128, g: 128, b: 128 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg({ quality: 92 })
    .toBuffer();
  const exif = await jpegWith({
    width: 16,
    height: 16,
    gps: true,
    taken: { local: '2026-11-20T10:00:00', offset: '-06:00' },
  });
  return Array.from({ length: count }, (_, i) =>
    Buffer.concat([withGps(noise, exif), Buffer.from(`${tag}${i}`)]),
  );
}

/** The noise picture with the small JPEG's EXIF (time and GPS) put in as its APP1 segment. */
function withGps(picture: Buffer, exifSource: Buffer): Buffer {
  const app1 = exifSource.indexOf(Buffer.from([0xff, 0xe1]));
  const length = exifSource.readUInt16BE(app1 + 2);
  return Buffer.concat([
    picture.subarray(0, 2),
    exifSource.subarray(app1, app1 + 2 + length),
    picture.subarray(2),
  ]);
}

async function upload(
  base: string,
  key: string,
  jobId: string,
  photos: Buffer[],
  room: string,
): Promise<void> {
  const form = new FormData();
  form.append('meta', JSON.stringify({ operation_id: randomUUID(), room }));
  for (const [i, photo] of photos.entries())
    form.append('photo', new Blob([new Uint8Array(photo)]), `p${i}.jpg`);
  const res = await fetch(`${base}/api/v1/jobs/${jobId}/photos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
}

interface Downloaded {
  buildId: string;
  buildMs: number;
  firstByteMs: number;
  downloadMs: number;
  bytes: number;
  expectedBytes: number;
}

/** A packet as a program gets it: POST the link, poll the build every 250 ms, then GET the file. */
async function buildAndDownload(base: string, pdfUrl: string, out = '/dev/null'): Promise<Downloaded> {
  const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, base);
  const started = performance.now();
  const asked = await fetch(local(pdfUrl), { method: 'POST' });
  if (asked.status !== 202) throw new Error(`POST pdf_url: ${asked.status} ${await asked.text()}`);
  let build = (await asked.json()) as {
    id: string;
    state: string;
    status_url: string;
    download_url: string | null;
    bytes: number | null;
    error: string | null;
  };
  while (build.state === 'queued' || build.state === 'building') {
    await new Promise((resolve) => setTimeout(resolve, 250));
    build = await (await fetch(local(build.status_url))).json();
  }
  if (build.state !== 'ready') throw new Error(`build ${build.id} ${build.state}: ${build.error}`);
  const buildMs = performance.now() - started;
  const got = await download(local(build.download_url!), 'GET', out);
  return {
    buildId: build.id,
    buildMs,
    firstByteMs: got.firstByteMs,
    downloadMs: got.totalMs,
    bytes: got.bytes,
    expectedBytes: build.bytes!,
  };
}

/** Samples the size of everything under `dir` every 200 ms; `stop` answers the largest seen, in MB. */
function tempPeak(dir: string): { stop(): number } {
  let peak = 0;
  const sample = () => {
    let bytes = 0;
    for (const name of existsSync(dir) ? readdirSync(dir, { recursive: true }) : []) {
      try {
        const info = statSync(path.join(dir, String(name)));
        if (info.isFile()) bytes += info.size;
      } catch {
        // removed while counted
      }
    }
    peak = Math.max(peak, bytes);
  };
  const timer = setInterval(sample, 200);
  return {
    stop: () => {
      clearInterval(timer);
      return peak / MB;
    },
  };
}

/** Downloads with curl (a client lean enough not to be what is measured), to /dev/null by default. */
async function download(
  url: string,
  method: 'GET' | 'POST',
  out = '/dev/null',
): Promise<{ firstByteMs: number; totalMs: number; bytes: number }> {
  const { stdout } = await run('curl', [
    '-sS',
    '-f',
    '-X',
    method,
    '-o',
    out,
    '-w',
    '%{time_starttransfer} %{time_total} %{size_download}',
    url,
  ]);
  const [firstByte, total, bytes] = stdout.trim().split(' ').map(Number);
  return { firstByteMs: firstByte * 1000, totalMs: total * 1000, bytes };
}

/** get_job called in a loop while `run` runs: the slowest answer says whether the event loop was held. */
async function whileMeasuringGetJob<T>(
  base: string,
  key: string,
  jobId: string,
  run: () => Promise<T>,
): Promise<{ result: T; slowestMs: number; calls: number }> {
  let running = true;
  let slowestMs = 0;
  let calls = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await (
        await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${key}` } })
      ).arrayBuffer();
      slowestMs = Math.max(slowestMs, performance.now() - started);
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    return { result: await run(), slowestMs, calls };
  } finally {
    running = false;
    await loop;
  }
}

/** The keys of the files a ZIP of the job holds: each photo's copy without location, else its original. */
async function storedKeysOf(
  call: (method: string, url: string) => Promise<{ data: { sha256: string }[]; next_cursor: string | null }>,
  jobId: string,
  filesDir: string,
): Promise<string[]> {
  const keys: string[] = [];
  for (let cursor: string | null = null; ; ) {
    const page = await call(
      'GET',
      `/api/v1/jobs/${jobId}/photos?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    for (const photo of page.data) {
      const company = readdirSync(filesDir).find((dir) =>
        existsSync(path.join(filesDir, dir, 'photos', photo.sha256)),
      )!;
      const variant = existsSync(path.join(filesDir, company, 'photos', photo.sha256, 'shareable'))
        ? 'shareable'
        : 'original';
      keys.push(`${company}/photos/${photo.sha256}/${variant}`);
    }
    if (!page.next_cursor) return keys;
    cursor = page.next_cursor;
  }
}

/** Reads the files through the service's own file store to /dev/null, in reads of `chunkBytes` (the default 64 KiB when not given). */
async function timedRead(
  filesDir: string,
  keys: string[],
  chunkBytes?: number,
): Promise<{ mb: number; seconds: number }> {
  const store = openFileStore({ filesDir, s3: null });
  const started = performance.now();
  let bytes = 0;
  for (const key of keys) {
    const opened = (await store.open(key, undefined, { chunkBytes }))!;
    bytes += opened.size;
    await pipeline(opened.stream, createWriteStream('/dev/null'));
  }
  return { mb: bytes / MB, seconds: (performance.now() - started) / 1000 };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
