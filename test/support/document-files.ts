/**
 * Documents made for tests, in memory, with the tools the service itself needs (poppler, qpdf)
 * and sharp: text PDFs written by hand, scanned PDFs (pages rendered to pictures, without a text
 * layer), mixed ones, encrypted, truncated and oversized PDFs, a photographed page, and Office
 * and plain ZIP files.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import sharp from 'sharp';

const run = promisify(execFile);

/** A page of text (one line each, Helvetica 24 pt), or a picture of a page filling a letter page. */
export type PdfPageSpec = { lines: string[] } | { scan: PageScan };

export interface PageScan {
  jpeg: Buffer;
  width: number;
  height: number;
  gray: boolean;
}

const LETTER: [number, number] = [612, 792];

/**
 * A minimal valid PDF: catalog, page tree, one font, then each page with its content stream (and
 * its picture). The xref table holds each object's byte offset, so poppler reads it without
 * having to repair it.
 */
export function pdfOf(pages: PdfPageSpec[], mediaBox: [number, number] = LETTER): Buffer {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = chunks[0].length;
  const add = (body: Buffer | string): void => {
    offsets.push(length);
    const chunk = Buffer.concat([
      Buffer.from(`${offsets.length} 0 obj\n`),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n'),
    ]);
    chunks.push(chunk);
    length += chunk.length;
  };
  const stream = (dict: string, data: Buffer): Buffer =>
    Buffer.concat([
      Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`),
      data,
      Buffer.from('\nendstream'),
    ]);
  // Objects 1–3, then 3 per page: page, content, picture (an empty dictionary for a text page, to keep the numbering simple).
  const pageId = (i: number): number => 4 + i * 3;
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(
    `<< /Type /Pages /Count ${pages.length} /Kids [${pages.map((_, i) => `${pageId(i)} 0 R`).join(' ')}] >>`,
  );
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const [width, height] = mediaBox;
  pages.forEach((page, i) => {
    const [content, picture] = [pageId(i) + 1, pageId(i) + 2];
    const resources = 'lines' in page ? '/Font << /F1 3 0 R >>' : `/XObject << /Im1 ${picture} 0 R >>`;
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << ${resources} >> /Contents ${content} 0 R >>`,
    );
    if ('lines' in page) {
      const shown = page.lines.map((line) => `(${line.replace(/[\\()]/g, '\\$&')}) Tj T*`).join(' ');
      add(stream('', Buffer.from(`BT /F1 24 Tf 30 TL 72 ${height - 72} Td ${shown} ET`, 'latin1')));
      add('<< >>');
    } else {
      add(stream('', Buffer.from(`q ${width} 0 0 ${height} 0 0 cm /Im1 Do Q`)));
      const { jpeg, gray } = page.scan;
      add(
        stream(
          `/Type /XObject /Subtype /Image /Width ${page.scan.width} /Height ${page.scan.height} /ColorSpace /${gray ? 'DeviceGray' : 'DeviceRGB'} /BitsPerComponent 8 /Filter /DCTDecode`,
          jpeg,
        ),
      );
    }
  });
  const xref = [
    `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`),
  ].join('');
  chunks.push(
    Buffer.from(
      `${xref}trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(chunks);
}

/** Runs `work` in a temporary directory, removed afterwards. */
async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'jms-doc-test-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Each page of `pdf` as a grey PNG, rendered by pdftoppm as a scanner would see it. */
export async function renderPages(pdf: Buffer, dpi = 150): Promise<Buffer[]> {
  return inTempDir(async (dir) => {
    await writeFile(path.join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', [
      '-r',
      String(dpi),
      '-gray',
      '-png',
      path.join(dir, 'in.pdf'),
      path.join(dir, 'page'),
    ]);
    // pdftoppm pads the page numbers to the same width, so the names sort in page order.
    const names = (await readdir(dir)).filter((name) => name.startsWith('page')).sort();
    return Promise.all(names.map((name) => readFile(path.join(dir, name))));
  });
}

/** Pages of text as scans: pictures of the pages, no text layer. */
export async function scansOf(pages: string[][], dpi = 150): Promise<PageScan[]> {
  const pngs = await renderPages(pdfOf(pages.map((lines) => ({ lines }))), dpi);
  return Promise.all(
    pngs.map(async (png) => {
      const { data, info } = await sharp(png)
        .greyscale()
        .toColourspace('b-w')
        .jpeg({ quality: 85 })
        .toBuffer({ resolveWithObject: true });
      return { jpeg: data, width: info.width, height: info.height, gray: info.channels === 1 };
    }),
  );
}

/** A PDF whose pages are all scans. */
export async function scannedPdf(pages: string[][]): Promise<Buffer> {
  return pdfOf((await scansOf(pages)).map((scan) => ({ scan })));
}

/** A photographed page of text: a JPEG, as a phone would send a receipt. */
export async function photographedPage(lines: string[]): Promise<Buffer> {
  const [png] = await renderPages(pdfOf([{ lines }]), 150);
  return sharp(png).jpeg({ quality: 88 }).toBuffer();
}

/** The PDF protected by a user password (AES-256), as qpdf writes it. */
export async function encryptedPdf(pdf: Buffer): Promise<Buffer> {
  return inTempDir(async (dir) => {
    await writeFile(path.join(dir, 'in.pdf'), pdf);
    await run('qpdf', [
      '--encrypt',
      'user-secret',
      'owner-secret',
      '256',
      '--',
      path.join(dir, 'in.pdf'),
      path.join(dir, 'out.pdf'),
    ]);
    return readFile(path.join(dir, 'out.pdf'));
  });
}

/** A ZIP of stored (uncompressed) entries. */
export function zipOf(entries: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const crc = zlib.crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed; flags, method (0: stored), time and date stay 0
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A minimal Word document: a ZIP holding word/document.xml. */
export function docxOf(text: string): Buffer {
  const contentTypes =
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
  const document =
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
    `<w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`;
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from(contentTypes) },
    { name: 'word/document.xml', data: Buffer.from(document) },
  ]);
}
