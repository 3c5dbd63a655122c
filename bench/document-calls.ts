/** Documents as the benches send them: report-like pages, scanned PDFs, an upload and a read_document call. */
import { randomUUID } from 'node:crypto';
import { pdfOf, scansOf } from '../test/support/document-files';

const WORDS = [
  'moisture',
  'dehumidifier',
  'drywall',
  'baseboard',
  'subfloor',
  'adjuster',
  'category',
  'reading',
  'kitchen',
  'hallway',
];

export interface DocumentText {
  pages?: { page: number; source: string }[];
  pending: number[];
}

/** Lines of a page of report-like text, different on every page. */
export function pageLines(page: number, count: number): string[] {
  return Array.from(
    { length: count },
    (_, line) =>
      `${page + 1}.${line + 1} ${WORDS[(page + line) % WORDS.length]} ${WORDS[(page * 3 + line) % WORDS.length]} ${20 + ((page * 7 + line) % 60)} percent`,
  );
}

/** A scan at 300 dpi of pages of text, tagged so that each is new content. */
export async function scannedPdf(pages: number, tag: string): Promise<Buffer> {
  const scans = await scansOf(
    Array.from({ length: pages }, (_, i) => [`${tag} page ${i + 1}`, ...pageLines(i, 30)]),
    300,
  );
  return pdfOf(scans.map((scan) => ({ scan })));
}

export async function uploadDocument(base: string, key: string, jobId: string, pdf: Buffer): Promise<string> {
  const form = new FormData();
  form.append('meta', JSON.stringify({ operation_id: randomUUID() }));
  form.append('document', new Blob([new Uint8Array(pdf)]), 'report.pdf');
  const res = await fetch(`${base}/api/v1/jobs/${jobId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()).documents[0].id;
}

export async function readDocument(
  base: string,
  key: string,
  documentId: string,
  query: string,
): Promise<DocumentText> {
  const res = await fetch(`${base}/api/v1/documents/${documentId}?${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`read_document: ${res.status} ${await res.text()}`);
  return res.json();
}
