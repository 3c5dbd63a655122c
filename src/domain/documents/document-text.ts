/**
 * The text of stored documents, page by page, read once and kept in `document_pages`. A page's
 * text layer is read at once (pdftotext takes milliseconds); a page without a trustworthy one is
 * queued for OCR on the durable job queue, which any node takes, one page a job, fairly between
 * companies, and again after a node dies. A caller can wait for queued pages: this node tells
 * its waiters when it keeps a page, and looks in the database for pages other nodes keep.
 */
import { EventEmitter } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { FileStore } from '../../infrastructure/files/store';
import { inspectPdf, needsOcr, textLayer } from '../../infrastructure/programs/pdf-reading';
import type { OcrPool } from '../../infrastructure/programs/ocr-pool';
import type { JobKind, JobQueue } from '../../infrastructure/queue/job-queue';
import { PDF_LIMITS } from './document-kinds';
import { storageKey } from '../media/storage-keys';

/** Pages read by one run of pdftotext: 2,500 pages took 9–12 s here, against its 20 s limit. */
const TEXT_RUN = 200;
/** How often a waiter looks for pages that other nodes read. */
const LOOK_MS = 250;
/** A local copy of a document stays this long after its last page was read, for the next. */
const COPY_LINGER_MS = 30_000;
export const OCR_PAGE = 'ocr.page';

export interface PageText {
  page: number;
  source: 'text_layer' | 'ocr';
  text: string;
}

/** A stored document to read: its content, and whether it is a PDF or a picture (one page). */
export interface StoredDocument {
  companyId: string;
  sha256: string;
  isPdf: boolean;
}

export interface Reading {
  ready: PageText[];
  /** The pages queued for OCR. */
  pending: number[];
}

interface OcrPageJob extends StoredDocument {
  page: number;
}

interface LocalCopy {
  path: Promise<string>;
  users: number;
  timer?: NodeJS.Timeout;
}

export class DocumentReader {
  private readonly copies = new Map<string, LocalCopy>();
  private readonly keptHere = new EventEmitter();

  constructor(
    private readonly db: Knex,
    private readonly files: FileStore,
    private readonly ocr: OcrPool,
    private readonly queue: JobQueue,
    private readonly log: Logger,
  ) {
    this.keptHere.setMaxListeners(0);
  }

  /** The kept text of `pages` (in order); the others are read now from the text layer, or queued for OCR. */
  async read(doc: StoredDocument, pages: number[]): Promise<Reading> {
    const ready = await this.kept(doc, pages);
    const missing = pages.filter((page) => !ready.some((p) => p.page === page));
    if (missing.length === 0) return { ready, pending: [] };
    const forOcr = doc.isPdf
      ? await this.withCopy(storageKey(doc.companyId, doc.sha256, 'original'), (file) =>
          this.readTextLayer(doc, file, missing, ready),
        )
      : [1];
    for (const page of forOcr)
      await this.queue.send(OCR_PAGE, { ...doc, page }, { singletonKey: pageKey(doc, page) });
    return { ready: ready.sort((a, b) => a.page - b.page), pending: forOcr };
  }

  /** Pages already read, from the database. */
  async kept(doc: StoredDocument, pages: number[]): Promise<PageText[]> {
    if (pages.length === 0) return [];
    return (await this.db('document_pages')
      .where({ company_id: doc.companyId, sha256: doc.sha256 })
      .whereIn('page', pages)
      .orderBy('page')
      .select('page', 'source', 'text')) as PageText[];
  }

  /** Waits until every page is kept or `ms` pass, telling each page as it is kept. */
  async waitFor(doc: StoredDocument, pages: number[], ms: number, onPage: () => void): Promise<void> {
    const waiting = new Set(pages);
    const deadline = Date.now() + ms;
    const heard = (key: string) => {
      const page = Number(key.split('/')[2]);
      if (key.startsWith(`${doc.companyId}/${doc.sha256}/`) && waiting.delete(page)) onPage();
    };
    this.keptHere.on('kept', heard);
    try {
      while (waiting.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(LOOK_MS, Math.max(0, deadline - Date.now()))),
        );
        for (const { page } of await this.kept(doc, [...waiting])) if (waiting.delete(page)) onPage();
      }
    } finally {
      this.keptHere.off('kept', heard);
    }
  }

  /** The queue's kind that reads one page by OCR, on whichever node takes it; a job running longer than `expireInSeconds` is taken to have died with its node. */
  ocrKind(concurrency: number, expireInSeconds: number): JobKind<OcrPageJob> {
    return {
      name: OCR_PAGE,
      concurrency,
      expireInSeconds,
      retryLimit: 3,
      retryDelaySeconds: 2,
      policy: 'short',
      run: (job) => this.readByOcr(job),
    };
  }

  /**
   * OCR of one page, kept also when OCR fails on it (an unreadable page is not read again and
   * again); a failure of the node itself (the store, shutting down) throws, and the queue retries.
   */
  private async readByOcr(job: OcrPageJob): Promise<void> {
    if ((await this.kept(job, [job.page])).length > 0) return;
    const key = storageKey(job.companyId, job.sha256, job.isPdf ? 'original' : 'web');
    const text = await this.withCopy(key, async (file) => {
      try {
        if (!job.isPdf) return await this.ocr.readImage(file);
        const inspection = await inspectPdf(file, PDF_LIMITS);
        if (!inspection.ok) throw new Error(`stored PDF ${job.sha256} cannot be read: ${inspection.detail}`);
        return await this.ocr.readPdfPage({
          path: file,
          page: job.page,
          size: inspection.pages[job.page - 1],
        });
      } catch (error) {
        if (this.ocr.closing) throw error;
        this.log.warn(
          { err: error, sha256: job.sha256, page: job.page },
          'OCR of a document page failed; kept as empty',
        );
        return '';
      }
    });
    await this.keep(job, [{ page: job.page, source: 'ocr', text }]);
    this.keptHere.emit('kept', pageKey(job, job.page));
  }

  /** Keeps the text layer of the missing pages that have one; answers the pages that need OCR. */
  private async readTextLayer(
    doc: StoredDocument,
    file: string,
    missing: number[],
    ready: PageText[],
  ): Promise<number[]> {
    const texts = await this.textOf(file, missing);
    const found = missing
      .filter((page) => !needsOcr(texts.get(page)!))
      .map((page) => ({ page, source: 'text_layer' as const, text: texts.get(page)! }));
    await this.keep(doc, found);
    ready.push(...found);
    return missing.filter((page) => needsOcr(texts.get(page)!));
  }

  /** The text layer of these pages, read in runs of at most TEXT_RUN pages (a whole long PDF in one run of pdftotext can outlast its time limit). */
  private async textOf(file: string, pages: number[]): Promise<Map<number, string>> {
    const texts = new Map<number, string>();
    const sorted = [...pages].sort((a, b) => a - b);
    for (let i = 0; i < sorted.length; ) {
      const from = sorted[i];
      const run = sorted.slice(i).filter((page) => page < from + TEXT_RUN);
      const to = run[run.length - 1];
      for (const [offset, text] of (await textLayer(file, from, to)).entries())
        texts.set(from + offset, text);
      i += run.length;
    }
    return texts;
  }

  private async keep(doc: StoredDocument, pages: PageText[]): Promise<void> {
    if (pages.length === 0) return;
    await this.db('document_pages')
      .insert(
        pages.map((p) => ({
          company_id: doc.companyId,
          sha256: doc.sha256,
          page: p.page,
          source: p.source,
          text: p.text,
        })),
      )
      .onConflict(['company_id', 'sha256', 'page'])
      .ignore();
  }

  /** Runs `work` on a local copy of a stored object (OCR tools read files), shared by the pages read meanwhile. */
  private async withCopy<T>(key: string, work: (file: string) => Promise<T>): Promise<T> {
    let copy = this.copies.get(key);
    if (!copy) {
      copy = { path: this.download(key), users: 0 };
      this.copies.set(key, copy);
    }
    clearTimeout(copy.timer);
    copy.users++;
    try {
      return await work(await copy.path);
    } finally {
      this.release(key, copy);
    }
  }

  private release(key: string, copy: LocalCopy): void {
    if (--copy.users > 0) return;
    copy.timer = setTimeout(() => {
      if (this.copies.get(key) !== copy || copy.users > 0) return;
      this.copies.delete(key);
      copy.path
        .then((file) => rm(path.dirname(file), { recursive: true, force: true }))
        .catch(() => undefined);
    }, COPY_LINGER_MS);
    copy.timer.unref();
    // A failed download is not kept for the next page.
    copy.path.catch(() => this.copies.delete(key));
  }

  private async download(key: string): Promise<string> {
    const opened = await this.files.open(key);
    if (!opened) throw new Error(`stored file ${key} is missing`);
    const dir = await mkdtemp(path.join(tmpdir(), 'jms-doc-'));
    const file = path.join(dir, 'file');
    await pipeline(opened.stream, createWriteStream(file));
    return file;
  }
}

function pageKey(doc: StoredDocument, page: number): string {
  return `${doc.companyId}/${doc.sha256}/${page}`;
}
