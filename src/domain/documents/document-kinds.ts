/** What the Files tab takes: each format's kind and content type, and the limits that refuse PDF bombs. */
import type { components } from '../../../sdk/src/schema';
import type { PdfLimits } from '../../infrastructure/programs/pdf-reading';

export type DocumentKind = components['schemas']['DocumentKind'];
export type DocumentFormat = components['schemas']['Document']['format'];

export const DOCUMENT_FORMATS: Record<
  DocumentFormat,
  { kind: DocumentKind; contentType: string; extension: string }
> = {
  pdf: { kind: 'pdf', contentType: 'application/pdf', extension: 'pdf' },
  jpeg: { kind: 'image', contentType: 'image/jpeg', extension: 'jpg' },
  png: { kind: 'image', contentType: 'image/png', extension: 'png' },
  heic: { kind: 'image', contentType: 'image/heic', extension: 'heic' },
  docx: {
    kind: 'word',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extension: 'docx',
  },
  xlsx: {
    kind: 'spreadsheet',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extension: 'xlsx',
  },
  pptx: {
    kind: 'presentation',
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extension: 'pptx',
  },
  doc: { kind: 'word', contentType: 'application/msword', extension: 'doc' },
  xls: { kind: 'spreadsheet', contentType: 'application/vnd.ms-excel', extension: 'xls' },
  ppt: { kind: 'presentation', contentType: 'application/vnd.ms-powerpoint', extension: 'ppt' },
};

/** 2,000 pages, and no page side over 200 inches (a larger page is a bomb, not a drawing). */
export const PDF_LIMITS: PdfLimits = { maxPages: 2000, maxPageSidePoints: 200 * 72 };

/** What a PDF's stored file keeps: its pages, or that it needs a password. */
export interface PdfFacts {
  page_count: number | null;
  encrypted: boolean;
}
