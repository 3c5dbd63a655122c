/**
 * The document kind of the upload intake (media/file-intake.ts): told by content, never by the
 * name alone. A PDF is opened with poppler (its pages counted, bombs refused, a password noted);
 * a picture is decoded as photos are (it gets the same renditions, and OCR reads its web one);
 * Word, Excel and PowerPoint files are ZIPs holding their main part, or OLE2 files whose name
 * says which.
 */
import yauzl from 'yauzl';
import { ApiError } from '../../platform/errors';
import { examinePicture } from '../media/photo-intake';
import { describeContent, sniffPhoto } from '../../infrastructure/images/sniff';
import { DOCUMENT_FORMATS, PDF_LIMITS, type DocumentFormat, type PdfFacts } from './document-kinds';
import { OcrPool } from '../../infrastructure/programs/ocr-pool';
import { inspectPdf } from '../../infrastructure/programs/pdf-reading';
import type { Deps } from '../services';
import { partName, type Examined, type FileKind, type ReceivedFile } from '../media/file-kind';

const MiB = 1024 * 1024;
const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
/** The part that makes a ZIP an Office Open XML file of each kind. */
const OOXML_PARTS: Record<string, DocumentFormat> = {
  'word/document.xml': 'docx',
  'xl/workbook.xml': 'xlsx',
  'ppt/presentation.xml': 'pptx',
};
const MAX_ZIP_ENTRIES = 10_000;

export const documentKind: FileKind = {
  tool: 'upload_job_documents',
  part: 'document',
  limits: () => ({
    filePart: 'document',
    fileBytes: 50 * MiB,
    files: 20,
    totalBytes: 200 * MiB,
    metaBytes: 64 * 1024,
  }),
  metaSchema: 'DocumentUploadMeta',
  formats: Object.keys(DOCUMENT_FORMATS),
  examine: examineDocument,
};

async function examineDocument(deps: Deps, file: ReceivedFile, outDir: string): Promise<Examined | ApiError> {
  const part = partName(file, 'document');
  if (file.head.subarray(0, 5).toString('latin1') === '%PDF-') return examinePdf(file, part);
  if (sniffPhoto(file.head)) return examinePicture(deps, file, outDir, 'document');
  const office =
    file.head.subarray(0, 4).toString('latin1') === 'PK\u0003\u0004'
      ? await ooxmlFormat(file.path)
      : oleFormat(file);
  if (office === 'unreadable')
    return new ApiError(422, 'invalid_file', `${part} is a damaged ZIP (Office) file.`);
  if (office) return { ...noRenditions(), format: office, contentType: DOCUMENT_FORMATS[office].contentType };
  return new ApiError(
    415,
    'unsupported_media_type',
    `${part} is not a PDF, picture, Word, Excel or PowerPoint file: its content is ${describeContent(file.head)}.`,
  );
}

async function examinePdf(file: ReceivedFile, part: string): Promise<Examined | ApiError> {
  if (!(await OcrPool.available())) {
    return new ApiError(
      503,
      'feature_unavailable',
      'PDFs cannot be taken on this server: poppler and tesseract are not installed (Debian packages poppler-utils and tesseract-ocr).',
    );
  }
  const inspection = await inspectPdf(file.path, PDF_LIMITS);
  let facts: PdfFacts;
  if (inspection.ok) facts = { page_count: inspection.pageCount, encrypted: false };
  else if (inspection.problem === 'encrypted') facts = { page_count: null, encrypted: true };
  else if (inspection.problem === 'corrupt')
    return new ApiError(422, 'invalid_file', `${part} is not a readable PDF: ${inspection.detail}`);
  else return new ApiError(422, 'document_too_large', `${part} is refused: ${inspection.detail}`);
  return {
    ...noRenditions(),
    format: 'pdf',
    contentType: DOCUMENT_FORMATS.pdf.contentType,
    facts: { ...facts },
  };
}

function noRenditions(): Omit<Examined, 'format' | 'contentType'> {
  return {
    width: null,
    height: null,
    taken: null,
    renditions: {},
    facts: null,
    shareableSha256: null,
    files: [],
  };
}

/** An Office 97–2003 file: its container says nothing of its kind, so its name's extension does. */
function oleFormat(file: ReceivedFile): DocumentFormat | null {
  if (!file.head.subarray(0, 8).equals(OLE2_MAGIC)) return null;
  const extension = file.fileName?.split('.').pop()?.toLowerCase();
  return extension === 'doc' || extension === 'xls' || extension === 'ppt' ? extension : null;
}

/** docx, xlsx or pptx by the main part the ZIP holds; null for another ZIP, 'unreadable' for a broken one. */
function ooxmlFormat(file: string): Promise<DocumentFormat | null | 'unreadable'> {
  return new Promise((resolve) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (error, zip) => {
      if (error || !zip) return resolve('unreadable');
      let seen = 0;
      const finish = (format: DocumentFormat | null | 'unreadable') => {
        zip.close();
        resolve(format);
      };
      zip.on('entry', (entry: yauzl.Entry) => {
        const format = OOXML_PARTS[entry.fileName];
        if (format) return finish(format);
        if (++seen >= MAX_ZIP_ENTRIES) return finish(null);
        zip.readEntry();
      });
      zip.on('end', () => resolve(null));
      zip.on('error', () => resolve('unreadable'));
      zip.readEntry();
    });
  });
}
