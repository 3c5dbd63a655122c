/**
 * `npm run bench:documents`: read_document measured from outside, against the service started as
 * in production (PGlite by default, `--db postgres` for the local server):
 *   - the first read of a 20-page text PDF (target under 500 ms);
 *   - a 5-page scanned PDF: seconds a page until every page is read by OCR the first time
 *     (target at most 3 s), then a read from the kept pages (target under 50 ms);
 *   - get_job's p99 alone, then while OCR reads scanned pages (same run): within 2× of alone.
 * The PDFs are made as the tests make them (test/support/document-files.ts), with poppler.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pdfOf } from '../test/support/document-files';
import { pageLines, readDocument, scannedPdf, uploadDocument } from './document-calls';
import { runHttpCase } from './measure';
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

const ADMIN_TOKEN = randomUUID();
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string', default: 'pglite' } } });
  const target = await freshDatabase(values.db === 'postgres' ? 'postgres' : 'pglite');
  const work = mkdtempSync(path.join(os.tmpdir(), 'jms-bench-docs-'));
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
    const key = await createWriteKey(base, ADMIN_TOKEN, 'Document bench');
    const jobId = await createJob(base, key);

    const text = await uploadDocument(
      base,
      key,
      jobId,
      pdfOf(Array.from({ length: 20 }, (_, i) => ({ lines: pageLines(i, 40) }))),
    );
    const first = await timed(() => readDocument(base, key, text, 'page_count=20&wait_seconds=0'));
    if (first.answer.pending.length > 0 || first.answer.pages?.some((p) => p.source !== 'text_layer'))
      throw new Error('the text PDF was not read from its text layer');
    console.log(`20-page text PDF, first read: ${first.ms.toFixed(0)} ms (target < 500)`);

    const scanned = await uploadDocument(base, key, jobId, await scannedPdf(5, 'bench'));
    const started = performance.now();
    let answer = await readDocument(base, key, scanned, 'page_count=5&wait_seconds=25');
    while (answer.pending.length > 0)
      answer = await readDocument(base, key, scanned, 'page_count=5&wait_seconds=25');
    const perPage = (performance.now() - started) / 1000 / 5;
    const cached = await medianOf(20, () => readDocument(base, key, scanned, 'page_count=5&wait_seconds=0'));
    console.log(
      `5-page scanned PDF, first read: ${perPage.toFixed(2)} s a page (target ≤ 3); kept: median ${cached.toFixed(1)} ms (target < 50)`,
    );

    const getJob = { name: 'get_job', next: () => ({ path: `/api/v1/jobs/${jobId}` }) };
    const idle = await runHttpCase(base, key, getJob, { connections: 4, seconds: 10 });
    // Scans uploaded one after another keep OCR busy for the whole measurement.
    let reading = true;
    const ocr = (async () => {
      for (let n = 0; reading; n++) {
        const id = await uploadDocument(base, key, jobId, await scannedPdf(3, `busy ${n}`));
        while (
          reading &&
          (await readDocument(base, key, id, 'page_count=3&wait_seconds=25')).pending.length > 0
        );
      }
    })();
    const busy = await runHttpCase(base, key, getJob, { connections: 4, seconds: 10 });
    reading = false;
    await ocr;
    console.log(
      `get_job p99: idle ${idle.p99} ms (${idle.rps} req/s); while OCR runs ${busy.p99} ms (${busy.rps} req/s): ${(busy.p99 / idle.p99).toFixed(2)}× (target ≤ 2)`,
    );
  } finally {
    await stopProcess(service);
    await target.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await run();
  return { answer, ms: performance.now() - started };
}

async function medianOf(times: number, run: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) ms.push((await timed(run)).ms);
  return ms.sort((a, b) => a - b)[Math.floor(times / 2)];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
