/** Documents as the spec shows them: a document row points at its stored file, whose format tells its kind. */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import type { CallContext } from '../../platform/handler';
import { fileLink } from '../media/file-links';
import { joinStoredFile, UNSORTED } from '../media/photo-records';
import { DOCUMENT_FORMATS, type DocumentFormat, type PdfFacts } from './document-kinds';
import type { Caller } from '../../platform/caller';

export type Document = components['schemas']['Document'];

export interface DocumentRow {
  id: string;
  job_id: string;
  sha256: string;
  room: string | null;
  name: string | null;
  uploaded_by: string;
  uploader_name: string;
  uploaded_via: Document['uploaded_via'];
  created_at: Date;
  /** created_at to the microsecond, for cursors (a Date keeps milliseconds; one upload's rows share one time). */
  created_key: string;
  format: DocumentFormat;
  bytes: number | string;
  facts: PdfFacts | null;
}

/** The company's documents with their stored file's facts and uploader. */
export function documentsQuery(db: Knex, companyId: string): Knex.QueryBuilder {
  return joinStoredFile(db('documents as d'), 'd')
    .join('people as p', 'p.id', 'd.uploaded_by')
    .where('d.company_id', companyId)
    .select(
      'd.*',
      db.raw('d.created_at::text as created_key'),
      'p.name as uploader_name',
      'f.format',
      'f.bytes',
      'f.facts',
    );
}

/** Pages and readability: a PDF by what poppler found, a picture is one page, office files are not read. */
export function readingOf(row: Pick<DocumentRow, 'format' | 'facts'>): {
  pageCount: number | null;
  readable: boolean;
} {
  const kind = DOCUMENT_FORMATS[row.format].kind;
  if (kind === 'image') return { pageCount: 1, readable: true };
  if (kind === 'pdf')
    return { pageCount: row.facts?.page_count ?? null, readable: row.facts?.encrypted === false };
  return { pageCount: null, readable: false };
}

export async function toDocument(
  ctx: Pick<CallContext, 'links' | 'config'>,
  caller: Caller,
  row: DocumentRow,
): Promise<Document> {
  const download = await fileLink(ctx, caller.companyId, 'documents', row.id, 'download');
  const reading = readingOf(row);
  return {
    id: row.id,
    job_id: row.job_id,
    name: row.name,
    kind: DOCUMENT_FORMATS[row.format].kind,
    format: row.format,
    bytes: Number(row.bytes),
    sha256: row.sha256,
    room: row.room ?? UNSORTED,
    page_count: reading.pageCount,
    readable: reading.readable,
    uploaded_by: { id: row.uploaded_by, name: row.uploader_name },
    uploaded_via: row.uploaded_via,
    uploaded_at: new Date(row.created_at).toISOString(),
    links: { download: download.url, expires_at: new Date(download.expires * 1000).toISOString() },
  };
}
