/**
 * The text of stored documents, page by page, read once and kept in `document_pages`. A page's
 * text layer is read at once (pdftotext takes milliseconds); a page without a trustworthy one is
 * read by OCR in the background on the bounded pool, and the caller gets a promise for it. A page
 * asked for again while OCR reads it joins that reading. OCR works on a local copy of the file,
 * kept while any of its pages is being read.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { FileStore } from '../../infrastructure/files/store';
import { inspectPdf, needsOcr, textLayer, type PdfPage } from '../../infrastructure/programs/pdf-reading';
import type { OcrPool } from '../../infrastructure/programs/ocr-pool';
import { PDF_LIMITS } from './document-kinds';
import { storageKey } from '../media/storage-keys';

/** Pages read by one run of pdftotext: 2,500 pages took 9–12 s here, against its 20 s limit. */
const TEXT_RUN = 200;

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
  /** The pages OCR is reading, each settling once its text is kept. */
  pending: Map<number, Promise<void>>;
}

interface LocalCopy {
  path: Promise<string>;
  users: number;
}

export class DocumentReader {
  private readonly reading = new Map<string, Promise<void>>();
  /** Pages each company has with OCR (queued or being read). */
  private readonly readingByCompany = new Map<string, number>();
  private readonly copies = new Map<string, LocalCopy>();

  /**
   * `pagesPerCompany`: the most pages one company may have with OCR at once. A search of a long
   * scan, or a poller calling again and again, then cannot fill the pool's queue for hours: the
   * rest of its pages are queued by later calls, and another company's page waits at most that
   * many pages.
   */
  constructor(
    private readonly db: Knex,
    private readonly files: FileStore,
    private readonly ocr: OcrPool,
    private readonly log: Logger,
    private readonly pagesPerCompany: number,
  ) {}

  /** The kept text of `pages` (in order); the others are read: now from the text layer, or by OCR in the background. */
  async read(doc: StoredDocument, pages: number[]): Promise<Reading> {
    const ready = await this.kept(doc, pages);
    const pending = new Map<number, Promise<void>>();
    let missing: number[] = [];
    for (const page of pages) {
      if (ready.some((p) => p.page === page)) continue;
      const underway = this.reading.get(pageKey(doc, page));
      if (underway) pending.set(page, underway);
      else missing.push(page);
    }
    // A page whose OCR ended while the kept pages were being looked up is kept by now.
    if (missing.length > 0) {
      const late = await this.kept(doc, missing);
      ready.push(...late);
      missing = missing.filter((page) => !late.some((p) => p.page === page));
    }
    if (missing.length === 0) return { ready: ready.sort((a, b) => a.page - b.page), pending };
    const copyKey = storageKey(doc.companyId, doc.sha256, doc.isPdf ? 'original' : 'web');
    const file = await this.useCopy(copyKey);
    try {
      const fromTextLayer = doc.isPdf ? await this.readTextLayer(doc, file, missing, pending) : [];
      if (!doc.isPdf && this.mayQueue(doc)) pending.set(1, this.readByOcr(doc, 1, copyKey, () => this.ocr.readImage(file)));
      await this.keep(doc, fromTextLayer);
      ready.push(...fromTextLayer);
      return { ready: ready.sort((a, b) => a.page - b.page), pending };
    } finally {
      this.releaseCopy(copyKey);
    }
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

  /** The text layer of the missing pages; those without a trustworthy one are handed to OCR (into `pending`). */
  private async readTextLayer(doc: StoredDocument, file: string, missing: number[], pending: Map<number, Promise<void>>): Promise<PageText[]> {
    const texts = await this.textOf(file, missing);
    const found: PageText[] = [];
    const forOcr: number[] = [];
    for (const page of missing) {
      const text = texts.get(page)!;
      if (needsOcr(text)) forOcr.push(page);
      else found.push({ page, source: 'text_layer', text });
    }
    if (forOcr.length > 0) {
      // Page sizes (for the render's DPI cap) are asked of poppler only when a page goes to OCR.
      const pages = await this.pageSizes(doc, file);
      const copyKey = storageKey(doc.companyId, doc.sha256, 'original');
      for (const page of forOcr) {
        if (!this.mayQueue(doc)) break;
        pending.set(page, this.readByOcr(doc, page, copyKey, () => this.ocr.readPdfPage({ path: file, page, size: pages[page - 1] })));
      }
    }
    return found;
  }

  private async pageSizes(doc: StoredDocument, file: string): Promise<PdfPage[]> {
    const inspection = await inspectPdf(file, PDF_LIMITS);
    if (!inspection.ok) throw new Error(`stored PDF ${doc.sha256} cannot be read: ${inspection.detail}`);
    return inspection.pages;
  }

  /** The text layer of these pages, read in runs of at most TEXT_RUN pages (a whole long PDF in one run of pdftotext can outlast its time limit). */
  private async textOf(file: string, pages: number[]): Promise<Map<number, string>> {
    const texts = new Map<number, string>();
    const sorted = [...pages].sort((a, b) => a - b);
    for (let i = 0; i < sorted.length; ) {
      const from = sorted[i];
      const run = sorted.slice(i).filter((page) => page < from + TEXT_RUN);
      const to = run[run.length - 1];
      (await textLayer(file, from, to)).forEach((text, offset) => texts.set(from + offset, text));
      i += run.length;
    }
    return texts;
  }

  /** Whether the document's company may hand one more page to OCR now. */
  private mayQueue(doc: StoredDocument): boolean {
    return (this.readingByCompany.get(doc.companyId) ?? 0) < this.pagesPerCompany;
  }

  /**
   * OCR of one page in the background (joining a reading of it already under way). Its text is
   * kept, also when empty: a page that fails is not read again and again. A page cut short by
   * the node shutting down is not kept, so that it is read again later. Never rejects.
   */
  private readByOcr(doc: StoredDocument, page: number, copyKey: string, read: () => Promise<string>): Promise<void> {
    const key = pageKey(doc, page);
    const underway = this.reading.get(key);
    if (underway) return underway;
    this.copies.get(copyKey)!.users++;
    this.readingByCompany.set(doc.companyId, (this.readingByCompany.get(doc.companyId) ?? 0) + 1);
    const done = read()
      .catch((error: unknown) => {
        if (this.ocr.closing) return null;
        this.log.warn({ err: error, sha256: doc.sha256, page }, 'OCR of a document page failed; kept as empty');
        return '';
      })
      .then((text) => (text === null ? undefined : this.keep(doc, [{ page, source: 'ocr', text }])))
      .catch((error: unknown) => this.log.error({ err: error, sha256: doc.sha256, page }, 'could not keep the OCR text of a document page'))
      .finally(() => {
        this.reading.delete(key);
        const left = this.readingByCompany.get(doc.companyId)! - 1;
        if (left === 0) this.readingByCompany.delete(doc.companyId);
        else this.readingByCompany.set(doc.companyId, left);
        this.releaseCopy(copyKey);
      });
    this.reading.set(key, done);
    return done;
  }

  private async keep(doc: StoredDocument, pages: PageText[]): Promise<void> {
    if (pages.length === 0) return;
    await this.db('document_pages')
      .insert(pages.map((p) => ({ company_id: doc.companyId, sha256: doc.sha256, page: p.page, source: p.source, text: p.text })))
      .onConflict(['company_id', 'sha256', 'page'])
      .ignore();
  }

  /** A local copy of a stored object (OCR tools read files), shared while in use. */
  private async useCopy(key: string): Promise<string> {
    let copy = this.copies.get(key);
    if (!copy) {
      copy = { path: this.download(key), users: 0 };
      this.copies.set(key, copy);
    }
    copy.users++;
    try {
      return await copy.path;
    } catch (error) {
      this.releaseCopy(key);
      throw error;
    }
  }

  private releaseCopy(key: string): void {
    const copy = this.copies.get(key);
    if (!copy || --copy.users > 0) return;
    this.copies.delete(key);
    copy.path.then((file) => rm(path.dirname(file), { recursive: true, force: true })).catch(() => undefined);
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
