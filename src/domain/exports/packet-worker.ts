/**
 * The work of one PDF packet, in a worker thread of the packet pool: make each photo's print
 * picture (one at a time, from its file, to a file of its own), lay the packet out with pdfmake
 * and send the PDF's bytes to the main thread over the task's port. pdfmake renders every page
 * before it hands pdfkit's stream over, so the PDF waits here and leaves as it is read.
 *
 * The port carries `{ printed }` as each photo's picture is made (the build's progress), then
 * `{ chunk }` (an ArrayBuffer, transferred), then `{ end: true }`, or `{ error }`. The main thread answers `{ more: n }` when its stream has taken n chunks: at most
 * WINDOW chunks are in flight, so a slow download holds the PDF here, off the main thread's heap.
 * The main thread closes the port when it no longer wants the PDF; the work then stops.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { MessagePort } from 'node:worker_threads';
import sharp from 'sharp';
import pdfmake from 'pdfmake';
import type { TDocumentDefinitions } from 'pdfmake/interfaces';
import { PDF_FONT_DIR, preparePdfmake } from '../../infrastructure/pdf-fonts';
import type { PacketData, PacketPhoto } from './packet-data';
import { packetDocument, type PacketPictures } from './packet-document';
import { signaturePictureKey } from './packet-form-section';

// The pool's size bounds the CPU: each thread resizes with one of libvips' threads, and no
// picture is made twice, so libvips' operation cache would only hold memory.
sharp.concurrency(1);
sharp.cache(false);

export interface PacketTask {
  data: PacketData;
  port: MessagePort;
}

export interface PacketResult {
  pages: number;
  bytes: number;
}

/** Worker to main thread. */
export type PacketMessage = { printed: number } | { chunk: ArrayBuffer } | { end: true } | { error: string };
/** Main thread to worker: it has taken `more` chunks. */
export interface PacketPull {
  more: number;
}

/** The print picture's long side: sharp enough for a third of a page, small enough for mail. */
const PRINT_SIDE = 1000;
const PRINT_QUALITY = 80;
/** A signature's print picture is at most this wide, as in the form's own PDF. */
const SIGNATURE_WIDTH = 900;
/** Bytes of PDF a message carries. */
const CHUNK_BYTES = 64 * 1024;
/** Chunks sent and not yet taken by the main thread's stream. */
const WINDOW = 4;

// A packet never fetches anything: its pictures are local files made here.
preparePdfmake();

export default async function buildPacket({ data, port }: PacketTask): Promise<PacketResult> {
  const link = new PortLink(port);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'packet-print-'));
  try {
    const pictures = await printPictures(data.photos ?? [], dir, link);
    await printSignatures(data, pictures, dir);
    link.check();
    const { pdf, pages } = await layOut(data, pictures, dir);
    return { pages, bytes: await send(pdf, link) };
  } catch (error) {
    link.fail(error);
    throw error;
  } finally {
    link.release();
    // The PDF may be sent whole by now: a leftover temporary file must not fail the task.
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Each photo's print picture, made from its file (never read whole into memory here) and
 * written to `dir`: pdfmake reads each when it places it. A picture that cannot be made (its
 * file gone or broken) is left out; the packet prints its caption without it.
 */
async function printPictures(photos: PacketPhoto[], dir: string, link: PortLink): Promise<PacketPictures> {
  const pictures: PacketPictures = new Map();
  for (const photo of photos) {
    if (pictures.has(photo.picture)) continue;
    link.check();
    const out = path.join(dir, `${pictures.size}.jpg`);
    // Web renditions are upright already; rotate() keeps any other picture upright too.
    const made = await sharp(photo.picture, { failOn: 'truncated' })
      .rotate()
      .resize(PRINT_SIDE, PRINT_SIDE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: PRINT_QUALITY })
      .toFile(out)
      .then(
        () => true,
        () => false,
      );
    if (made) pictures.set(photo.picture, out);
    link.printed(pictures.size);
  }
  return pictures;
}

/**
 * Each PNG signature of the signed forms made again for print (decoded and encoded anew, never
 * embedded as sent), as the ink on white paper: a JPEG file in `dir`, as the photos' pictures
 * are, under its form and role. A PNG picture laid out in this worker never finished (pdfmake
 * stopped with nothing sent); the JPEG files photos are printed from do.
 */
async function printSignatures(data: PacketData, pictures: PacketPictures, dir: string): Promise<void> {
  for (const form of data.signedForms ?? [])
    for (const signer of form.signers) {
      if (!('png' in signer.signature)) continue;
      const out = path.join(dir, `signature-${pictures.size}.jpg`);
      await sharp(Buffer.from(signer.signature.png, 'base64'), { failOn: 'truncated' })
        .resize({ width: SIGNATURE_WIDTH, withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: PRINT_QUALITY })
        .toFile(out);
      pictures.set(signaturePictureKey(form.form_id, signer.role), out);
    }
}

/** The laid-out PDF as pdfkit's document (not yet ended), and its page count. */
async function layOut(
  data: PacketData,
  pictures: PacketPictures,
  dir: string,
): Promise<{ pdf: PDFKit.PDFDocument; pages: number }> {
  const definition = packetDocument(data, pictures);
  let pages = 0;
  countPages(definition, (count) => (pages = count));
  // Only the fonts and this packet's own pictures may be read from disk.
  pdfmake.setLocalAccessPolicy(
    (file) => file.startsWith(PDF_FONT_DIR + path.sep) || file.startsWith(dir + path.sep),
  );
  // pdfmake lays out and renders every page before it hands the document over.
  const pdf = await pdfmake.createPdf(definition).getStream();
  return { pdf, pages };
}

/** pdfmake tells the page count only to the footer; it is listened for there. */
function countPages(definition: TDocumentDefinitions, seen: (count: number) => void): void {
  const footer = definition.footer;
  definition.footer = (page, count, size) => {
    seen(count);
    return typeof footer === 'function' ? footer(page, count, size) : footer;
  };
}

/** Sends the PDF in chunks of CHUNK_BYTES as the main thread takes them; its size in bytes. */
async function send(pdf: PDFKit.PDFDocument, link: PortLink): Promise<number> {
  pdf.end();
  const stream = readable(pdf);
  let total = 0;
  try {
    for await (const piece of pieces(stream, CHUNK_BYTES)) {
      total += piece.length;
      // A copy of its own (pieces may be views of pdfkit's buffers), so that it can be transferred.
      await link.send(new Uint8Array(piece).buffer);
    }
  } finally {
    stream.destroy();
  }
  link.end();
  return total;
}

function readable(pdf: PDFKit.PDFDocument): Readable {
  if (pdf instanceof Readable) return pdf;
  throw new Error('pdfkit gave no readable stream');
}

/**
 * The stream's bytes in pieces of `size` (the last one shorter). pdfkit has pushed the whole PDF
 * by now, and reading by size takes it a piece at a time instead of joining it all into one copy.
 */
async function* pieces(stream: Readable, size: number): AsyncGenerator<Buffer> {
  for (;;) {
    const piece: Buffer | null = stream.read(size);
    if (piece !== null) yield piece;
    else if (stream.readableEnded) return;
    else await readableOrEnd(stream);
  }
}

function readableOrEnd(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error): void => {
      stream.off('readable', settle).off('end', settle).off('error', settle);
      if (error) reject(error);
      else resolve();
    };
    stream.on('readable', settle).on('end', settle).on('error', settle);
  });
}

/** The task's port: sends chunks as the main thread takes them, and knows when it went away. */
class PortLink {
  private credit = WINDOW;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(private readonly port: MessagePort) {
    port.on('message', this.onPull);
    port.on('close', this.onClose);
  }

  private readonly onPull = (message: PacketPull): void => {
    this.credit += message.more;
    this.wake?.();
  };

  private readonly onClose = (): void => {
    this.closed = true;
    this.wake?.();
  };

  /** Stops the work once nobody reads the PDF any more. */
  check(): void {
    if (this.closed) throw new Error('the packet was no longer wanted');
  }

  async send(chunk: ArrayBuffer): Promise<void> {
    while (this.credit <= 0) {
      this.check();
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
    this.check();
    this.credit -= 1;
    this.port.postMessage({ chunk } satisfies PacketMessage, [chunk]);
  }

  printed(count: number): void {
    if (!this.closed) this.port.postMessage({ printed: count } satisfies PacketMessage);
  }

  end(): void {
    this.port.postMessage({ end: true } satisfies PacketMessage);
  }

  fail(error: unknown): void {
    if (!this.closed)
      this.port.postMessage({
        error: error instanceof Error ? error.message : String(error),
      } satisfies PacketMessage);
  }

  /** The main thread closes the port; here it only stops listening, so the thread can idle. */
  release(): void {
    this.port.off('message', this.onPull);
    this.port.off('close', this.onClose);
  }
}
