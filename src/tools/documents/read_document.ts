import type { ReadHandler } from '../tool';
import { ApiError, invalidRequest, notFound } from '../../platform/errors';
import { DOCUMENT_FORMATS } from '../../domain/documents/document-kinds';
import { documentsQuery, readingOf, type DocumentRow } from '../../domain/documents/document-records';
import { matchesOf } from '../../domain/documents/page-matches';
import { OcrPool } from '../../infrastructure/programs/ocr-pool';

const DEFAULT_PAGES = 10;
const DEFAULT_WAIT_S = 5;

/**
 * A document's text page by page, or the pages holding every word of `q`. Pages queued for OCR
 * are waited for up to `wait_seconds` (outside the company's slot, with progress over MCP), then
 * listed as pending.
 */
export const read_document: ReadHandler<'read_document'> = async (ctx, { path, query }) => {
  const { db, caller } = ctx;
  const row = (await documentsQuery(db, caller.companyId).where('d.id', path.document_id).first()) as
    | DocumentRow
    | undefined;
  if (!row) throw notFound('document');
  const kind = DOCUMENT_FORMATS[row.format].kind;
  if (kind === 'pdf' && row.facts?.encrypted)
    throw new ApiError(
      422,
      'document_encrypted',
      `${row.name ?? 'This PDF'} is protected by a password and cannot be read; upload a copy without the password.`,
    );
  if (kind !== 'pdf' && kind !== 'image')
    throw new ApiError(
      422,
      'document_unreadable',
      `${row.name ?? 'This document'} is a ${kind} file: only PDFs and pictures are read as text. Download it with its link instead.`,
    );
  if (!(await OcrPool.available()))
    throw new ApiError(
      503,
      'feature_unavailable',
      'Documents cannot be read on this server: poppler and tesseract are not installed (Debian packages poppler-utils and tesseract-ocr).',
    );

  const pageCount = readingOf(row).pageCount!;
  const from = query.page_from ?? 1;
  if (!query.q && from > pageCount)
    throw invalidRequest([
      {
        path: '/query/page_from',
        message: `is past the last page: the document has ${pageCount} page${pageCount === 1 ? '' : 's'}`,
      },
    ]);
  const last = query.q ? pageCount : Math.min(pageCount, from + (query.page_count ?? DEFAULT_PAGES) - 1);
  const asked = Array.from({ length: last - (query.q ? 1 : from) + 1 }, (_, i) => (query.q ? 1 : from) + i);

  const doc = { companyId: caller.companyId, sha256: row.sha256, isPdf: kind === 'pdf' };
  const reading = await ctx.documents.read(doc, asked);
  const waitMs = (query.wait_seconds ?? DEFAULT_WAIT_S) * 1000;
  let pages = reading.ready;
  if (reading.pending.length > 0 && waitMs > 0) {
    let done = reading.ready.length;
    const told = () => ctx.progress(done, asked.length, `${done} of ${asked.length} pages read`);
    told();
    const onPage = () => {
      done++;
      told();
    };
    await ctx.waitAside(ctx.documents.waitFor(doc, reading.pending, waitMs, onPage));
    pages = await ctx.documents.kept(doc, asked);
  }
  const read = new Set(pages.map((p) => p.page));
  return {
    document_id: row.id,
    job_id: row.job_id,
    name: row.name,
    kind,
    page_count: pageCount,
    ...(query.q ? { matches: matchesOf(pages, query.q) } : { pages }),
    pending: asked.filter((page) => !read.has(page)),
    next_page_from: query.q || last >= pageCount ? null : last + 1,
  };
};
