/**
 * A bounded queue of OCR work: PDF pages (rendered by pdftoppm) and images, read by tesseract in
 * child processes, at most `workers` at once. Tesseract runs with OMP_THREAD_LIMIT=1: with its
 * OpenMP threads a page took 14–19 s on 2 cores instead of ~2 s, so parallelism comes from the
 * pool, one single-threaded process per worker.
 */
import { setMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fastq from 'fastq';
import sharp from 'sharp';
import { runProgram } from './programs';
import { fileArg, lastMessage, renderDpi, type PdfPage } from './pdf-reading';

export interface OcrPoolOptions {
  workers: number;
  /** For the whole of a task: rendering and reading. */
  pageTimeoutMs: number;
  /** The longer side of a rendered page; an image may have at most this squared pixels. */
  maxSidePixels: number;
}

type OcrTask = { kind: 'pdf'; path: string; page: number; size: PdfPage } | { kind: 'image'; path: string };

const TEXT_CAP = 4 * 1024 * 1024;
const QUIET_CAP = 64 * 1024;
const PROBE_TIMEOUT_MS = 10_000;
const CLOSE_GRACE_MS = 10_000;

export class OcrPool {
  private static availability: Promise<boolean> | undefined;
  private readonly queue: fastq.queueAsPromised<OcrTask, string>;
  /** Aborted when closing outlasts its grace: kills the running processes. */
  private readonly stopper = new AbortController();
  private closed = false;

  constructor(private readonly options: OcrPoolOptions) {
    const workers = Math.max(1, options.workers);
    this.queue = fastq.promise<unknown, OcrTask, string>((task) => this.run(task), workers);
    // Each running process listens for the stop: many workers are not a listener leak.
    setMaxListeners(workers + 1, this.stopper.signal);
  }

  readPdfPage(task: { path: string; page: number; size: PdfPage }): Promise<string> {
    if (!Number.isSafeInteger(task.page) || task.page < 1)
      return Promise.reject(new RangeError(`Invalid page ${task.page}`));
    return this.enqueue({ kind: 'pdf', ...task });
  }

  readImage(file: string): Promise<string> {
    return this.enqueue({ kind: 'image', path: file });
  }

  /** Whether the pool stopped taking tasks (the node is shutting down). */
  get closing(): boolean {
    return this.closed;
  }

  get busy(): number {
    return this.queue.length() + this.queue.running();
  }

  /** Waiting tasks are refused; running ones may finish within a grace, then they are killed. */
  async close(): Promise<void> {
    this.closed = true;
    const grace = setTimeout(
      () => this.stopper.abort(),
      Math.min(this.options.pageTimeoutMs, CLOSE_GRACE_MS),
    );
    await this.queue.drained();
    clearTimeout(grace);
  }

  static available(): Promise<boolean> {
    OcrPool.availability ??= probeTools();
    return OcrPool.availability;
  }

  private enqueue(task: OcrTask): Promise<string> {
    if (this.closed) return Promise.reject(closedError());
    return this.queue.push(task);
  }

  private async run(task: OcrTask): Promise<string> {
    // Tasks still queued when the pool closes are refused as they come up, not started.
    if (this.closed) throw closedError();
    const deadline = Date.now() + this.options.pageTimeoutMs;
    return task.kind === 'pdf' ? this.readPage(task, deadline) : this.readPicture(task.path, deadline);
  }

  private async readPage(
    task: { path: string; page: number; size: PdfPage },
    deadline: number,
  ): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ocr-'));
    try {
      const root = path.join(dir, 'page');
      const dpi = renderDpi(task.size, this.options.maxSidePixels);
      const page = String(task.page);
      // -cropbox: pdfinfo's sizes (and so the DPI cap) are the crop box; by default pdftoppm
      // renders the media box, which may be far larger. -singlefile: the name is root.pgm. A
      // PGM (no compression) took 0.56 s against 1.1 s for a PNG of the same page, and
      // tesseract read it in 1.9 s against 2.4 s; it carries no DPI, so tesseract is told.
      const args = [
        '-f',
        page,
        '-l',
        page,
        '-r',
        String(dpi),
        '-gray',
        '-cropbox',
        '-singlefile',
        fileArg(task.path),
        root,
      ];
      await this.tool('pdftoppm', args, deadline, QUIET_CAP);
      return await this.tesseract(`${root}.pgm`, deadline, dpi);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async readPicture(file: string, deadline: number): Promise<string> {
    await this.checkImage(file);
    return this.tesseract(file, deadline);
  }

  /**
   * Only a JPEG or PNG goes to tesseract: it takes any file it cannot decode as a list of image
   * paths to read (so an uploaded text file could name the server's files). The pixel count is
   * capped like a rendered page's, since tesseract's memory grows with it (~135 MB at 8 MP).
   */
  private async checkImage(file: string): Promise<void> {
    // sharp reads only the header here (content sniffing, not the file name's extension).
    const header = await sharp(file)
      .metadata()
      .catch((error: unknown) => {
        throw new Error('Not a readable JPEG or PNG image', { cause: error });
      });
    const { format, width = 0, height = 0 } = header;
    if (format !== 'jpeg' && format !== 'png') throw new Error(`Not a JPEG or PNG image (it is ${format})`);
    const maxPixels = this.options.maxSidePixels ** 2;
    if (width * height > maxPixels)
      throw new Error(`The image has ${width} × ${height} pixels; at most ${maxPixels} are read`);
  }

  private async tesseract(image: string, deadline: number, dpi?: number): Promise<string> {
    const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
    const args = [
      fileArg(image),
      'stdout',
      '-l',
      'eng',
      '--psm',
      '3',
      ...(dpi ? ['--dpi', String(dpi)] : []),
    ];
    const output = await this.tool('tesseract', args, deadline, TEXT_CAP, env);
    return normalise(output);
  }

  /** Runs a step within the task's deadline; throws on any failure. */
  private async tool(
    command: string,
    args: string[],
    deadline: number,
    cap: number,
    env?: NodeJS.ProcessEnv,
  ): Promise<string> {
    const run = await runProgram(command, args, {
      timeoutMs: deadline - Date.now(),
      maxOutputBytes: cap,
      env,
      signal: this.stopper.signal,
    });
    if (this.stopper.signal.aborted) throw closedError();
    if (run.timedOut)
      throw new Error(
        `${command} did not finish within the OCR time limit of ${this.options.pageTimeoutMs} ms`,
      );
    if (run.overflowed) throw new Error(`${command} wrote more than ${cap} bytes`);
    if (run.code !== 0) throw new Error(`${command} failed (exit ${run.code}): ${lastMessage(run.stderr)}`);
    return run.stdout.toString('utf8');
  }
}

function closedError(): Error {
  return new Error('The OCR pool is closed');
}

/** Lines without trailing spaces, at most one blank line in a row, no blank ends. */
function normalise(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

async function probeTools(): Promise<boolean> {
  const quiet = { timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: QUIET_CAP };
  try {
    const [pdftoppm, tesseract] = await Promise.all([
      runProgram('pdftoppm', ['-v'], quiet),
      runProgram('tesseract', ['--list-langs'], quiet),
    ]);
    return pdftoppm.code === 0 && tesseract.code === 0 && /^eng$/m.test(tesseract.stdout.toString('utf8'));
  } catch {
    // Not installed (ENOENT) or not runnable.
    return false;
  }
}
