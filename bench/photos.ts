/**
 * `npm run bench:photos`: photo uploads measured from outside, against the service started as in
 * production (PGlite by default, `--db postgres` for the local server):
 *   - one request of 20 JPEGs of about 4 MB, then one of 40: the service's peak RSS during each
 *     (sampled from /proc every 10 ms); streamed uploads grow it by less than 50 MB from 20 to 40;
 *   - photos a second for 12-megapixel JPEGs and for 12-megapixel HEICs;
 *   - get_job's p99 alone, then while HEIC uploads run (same run): within 2× of alone.
 * HEICs are made once with Debian's heif-enc (libheif-examples), which the bench needs.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { runHttpCase, type CaseResult } from './measure';
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
import { peakDuring } from './memory';

const ADMIN_TOKEN = randomUUID();
const MB = 1024 * 1024;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string', default: 'pglite' } } });
  const target = await freshDatabase(values.db === 'postgres' ? 'postgres' : 'pglite');
  const work = mkdtempSync(path.join(os.tmpdir(), 'jms-bench-photos-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = await startProcess('src/main.ts', port, {
    ...databaseEnv(target),
    FILES_DIR: path.join(work, 'files'),
    ADMIN_TOKEN,
    DEMO_SEED: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_BURST: '10000',
    UPLOAD_MB_PER_SECOND: UNPACED,
  });
  try {
    const key = await createWriteKey(base, ADMIN_TOKEN, 'Photo bench');
    const jpegs = await Promise.all(Array.from({ length: 40 }, (_, i) => photoJpeg(i)));
    console.log(
      `JPEG size: ${(jpegs.reduce((n, j) => n + j.length, 0) / jpegs.length / MB).toFixed(1)} MB each (4000×3000)`,
    );
    const heics = heicsOf(jpegs.slice(0, 8), work);

    const rss20 = await peakDuring(service.pid!, () => upload(base, key, jpegs.slice(0, 20)));
    const rss40 = await peakDuring(service.pid!, () =>
      upload(
        base,
        key,
        jpegs.slice(0, 40).map((j, i) => Buffer.concat([j, Buffer.from(`#${i}-2`)])),
      ),
    );
    console.log(
      `peak RSS: idle ${rss20.before} MB; 20 JPEGs ${rss20.peak} MB (${rss20.seconds.toFixed(1)} s); 40 JPEGs ${rss40.peak} MB (${rss40.seconds.toFixed(1)} s); growth 20→40: ${rss40.peak - rss20.peak} MB (target < 50)`,
    );

    const jpegRate = await rate(
      base,
      key,
      jpegs.slice(0, 20).map((j, i) => Buffer.concat([j, Buffer.from(`rate-${i}`)])),
      5,
    );
    const heicRate = await rate(base, key, heics, 1);
    console.log(`JPEG 12 MP: ${jpegRate.toFixed(1)} photos/s; HEIC 12 MP: ${heicRate.toFixed(1)} photos/s`);

    const jobId = await createJob(base, key);
    const getJob = { name: 'get_job', next: () => ({ path: `/api/v1/jobs/${jobId}` }) };
    const idle = await runHttpCase(base, key, getJob, { connections: 4, seconds: 10 });
    let uploading = true;
    const uploads = (async () => {
      let n = 0;
      while (uploading)
        await upload(
          base,
          key,
          heics.slice(0, 2).map((h) => Buffer.concat([h, Buffer.from(`busy-${n++}`)])),
        );
    })();
    const busy = await runHttpCase(base, key, getJob, { connections: 4, seconds: 10 });
    uploading = false;
    await uploads;
    report(idle, busy);
  } finally {
    await stopProcess(service);
    await target.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

function report(idle: CaseResult, busy: CaseResult): void {
  const ratio = busy.p99 / idle.p99;
  console.log(
    `get_job p99: idle ${idle.p99} ms (${idle.rps} req/s); while HEIC uploads run ${busy.p99} ms (${busy.rps} req/s): ${ratio.toFixed(2)}× (target ≤ 2)`,
  );
}

/** A 4000×3000 photo-like JPEG of about 4 MB (noise keeps it from compressing away). */
async function photoJpeg(seed: number): Promise<Buffer> {
  const [width, height] = [4000, 3000];
  const pixels = Buffer.alloc(width * height * 3);
  let x = seed * 7919 + 1;
  for (let i = 0; i < pixels.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    pixels[i] = ((i % (width * 3)) >> 5) + (x >>> 27);
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

function heicsOf(jpegs: Buffer[], work: string): Buffer[] {
  return jpegs.map((jpeg, i) => {
    const [source, out] = [path.join(work, `h${i}.jpg`), path.join(work, `h${i}.heic`)];
    writeFileSync(source, jpeg);
    execFileSync('heif-enc', ['-q', '60', '-o', out, source], { stdio: 'ignore' });
    return readFileSync(out);
  });
}

async function upload(base: string, key: string, photos: Buffer[]): Promise<void> {
  const jobId = await createJob(base, key);
  const form = new FormData();
  form.append('meta', JSON.stringify({ operation_id: randomUUID(), room: 'Kitchen' }));
  for (const [i, photo] of photos.entries()) form.append('photo', new Blob([new Uint8Array(photo)]), `p${i}`);
  const res = await fetch(`${base}/api/v1/jobs/${jobId}/photos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
}

/** Photos a second over `rounds` uploads of the set (each to a new job, so nothing is a duplicate of the last). */
async function rate(base: string, key: string, photos: Buffer[], rounds: number): Promise<number> {
  const started = performance.now();
  for (let r = 0; r < rounds; r++)
    await upload(
      base,
      key,
      photos.map((p) => Buffer.concat([p, Buffer.from(`r${r}`)])),
    );
  return (photos.length * rounds) / ((performance.now() - started) / 1000);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
