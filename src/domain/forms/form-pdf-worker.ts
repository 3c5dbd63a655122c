/**
 * The work of one signed form's PDF, in a worker thread of the form PDF pool: each PNG signature
 * made again for print (decoded and re-encoded by sharp, so that the PDF never embeds a file as
 * sent), the document laid out with pdfmake, and the PDF written to `out` while its SHA-256 is
 * taken.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import pdfmake from 'pdfmake';
import { PDF_FONT_DIR, preparePdfmake } from '../../infrastructure/pdf-fonts';
import { formPdfDocument, type FormPdfData, type SignaturePictures } from './form-pdf-document';
import { MAX_SIGNATURE_PIXELS } from './sign-input';

sharp.concurrency(1);
sharp.cache(false);

export interface FormPdfTask {
  data: FormPdfData;
  /** Where the PDF is written. */
  out: string;
}

export interface FormPdfResult {
  bytes: number;
  sha256: string;
  pages: number;
}

/** A signature's print picture: at most this wide, which is sharp at the size it is printed. */
const PRINT_WIDTH = 900;

preparePdfmake();
// A form's PDF reads nothing but its fonts: signatures come in as data.
pdfmake.setLocalAccessPolicy((file) => file.startsWith(PDF_FONT_DIR + path.sep));

export default async function buildFormPdf({ data, out }: FormPdfTask): Promise<FormPdfResult> {
  const definition = formPdfDocument(data, await printPictures(data));
  let pages = 0;
  const footer = definition.footer;
  definition.footer = (page, count, size) => {
    pages = count;
    return typeof footer === 'function' ? footer(page, count, size) : footer;
  };
  const pdf = await pdfmake.createPdf(definition).getStream();
  const hash = createHash('sha256');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  pdf.end();
  await pipeline(pdf as unknown as NodeJS.ReadableStream, measure, createWriteStream(out));
  return { bytes, sha256: hash.digest('hex'), pages };
}

async function printPictures(data: FormPdfData): Promise<SignaturePictures> {
  const pictures: SignaturePictures = {};
  for (const signer of data.signers) {
    if (!('png' in signer.signature)) continue;
    const png = await sharp(Buffer.from(signer.signature.png, 'base64'), {
      failOn: 'truncated',
      limitInputPixels: MAX_SIGNATURE_PIXELS,
    })
      .resize({ width: PRINT_WIDTH, withoutEnlargement: true })
      .png()
      .toBuffer();
    pictures[signer.role] = `data:image/png;base64,${png.toString('base64')}`;
  }
  return pictures;
}
