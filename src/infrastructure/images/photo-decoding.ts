/**
 * The work done for each uploaded photo, in a worker thread of the decode pool: tell what the
 * file is by its content, refuse a picture too large to decode from its header alone, decode
 * it (HEIC through libheif compiled to WebAssembly, which runs synchronously: never on the main
 * thread), make the web rendition and the thumbnail with the orientation applied and no
 * metadata (so no location), and read the camera's time.
 */
import { readFile } from 'node:fs/promises';
import { readHead } from '../files/head';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import decodeHeic from 'heic-decode';
import exifr from 'exifr';
import { describeContent, sniffPhoto, type PhotoFormat } from './sniff';

// The pool's size bounds the CPU: each thread decodes with one of libvips' threads. Nothing is
// decoded twice, so libvips' operation cache would only hold memory.
sharp.concurrency(1);
sharp.cache(false);

export type { PhotoFormat } from './sniff';

export interface DecodeTask {
  sourcePath: string;
  /** Where web.jpg and thumb.jpg are written. */
  outDir: string;
  maxPixels: number;
}

export interface Rendition {
  width: number;
  height: number;
  bytes: number;
}

export interface PreparedImage {
  ok: true;
  format: PhotoFormat;
  /** As displayed: orientation applied. */
  width: number;
  height: number;
  /** The camera's time: local, with its offset when it wrote one. */
  taken: { local: string; offset: string | null } | null;
  web: Rendition;
  thumb: Rendition;
}

export interface RefusedImage {
  ok: false;
  problem: 'unsupported' | 'corrupt' | 'too_many_pixels';
  detail: string;
}

export type ImageResult = PreparedImage | RefusedImage;

const WEB_SIDE = 2048;
const THUMB_SIDE = 400;
const HEAD_BYTES = 64;

export default async function decodePhoto(task: DecodeTask): Promise<ImageResult> {
  const head = await readHead(task.sourcePath, HEAD_BYTES);
  const format = sniffPhoto(head);
  if (!format)
    return { ok: false, problem: 'unsupported', detail: `its content is ${describeContent(head)}` };
  // Only the header is read here; sharp's own pixel limit would refuse a bomb as unreadable.
  const header = await sharp(task.sourcePath, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  if (!header?.width || !header.height)
    return { ok: false, problem: 'corrupt', detail: `its ${format.toUpperCase()} header cannot be read` };
  if (header.width * header.height > task.maxPixels) {
    return {
      ok: false,
      problem: 'too_many_pixels',
      detail: `${header.width} × ${header.height} pixels (${Math.round((header.width * header.height) / 1e6)} megapixels)`,
    };
  }
  try {
    const image =
      format === 'heic'
        ? await heicPixels(task.sourcePath)
        : sharp(task.sourcePath, { failOn: 'truncated', limitInputPixels: task.maxPixels }).rotate();
    const web = await rendition(image.clone(), WEB_SIDE, 82, path.join(task.outDir, 'web.jpg'));
    const thumb = await rendition(image, THUMB_SIDE, 75, path.join(task.outDir, 'thumb.jpg'));
    const turned = format !== 'heic' && (header.orientation ?? 1) >= 5;
    return {
      ok: true,
      format,
      width: turned ? header.height : header.width,
      height: turned ? header.width : header.height,
      taken: await takenTime(header.exif),
      web,
      thumb,
    };
  } catch (error) {
    return {
      ok: false,
      problem: 'corrupt',
      detail: `it cannot be decoded (${(error as Error).message.split('\n')[0]})`,
    };
  }
}

async function heicPixels(file: string): Promise<Sharp> {
  const decoded = await decodeHeic({ buffer: await readFile(file) });
  return sharp(Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength), {
    raw: { width: decoded.width, height: decoded.height, channels: 4 },
  });
}

/** A JPEG that fits `side`, never enlarged; sharp writes no metadata unless told to. */
async function rendition(image: Sharp, side: number, quality: number, out: string): Promise<Rendition> {
  const info = await image
    .resize(side, side, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality, mozjpeg: false })
    .toFile(out);
  return { width: info.width, height: info.height, bytes: info.size };
}

/** DateTimeOriginal (with OffsetTimeOriginal) from the EXIF block sharp found, if it reads as a real time. */
async function takenTime(exif: Buffer | undefined): Promise<PreparedImage['taken']> {
  if (!exif) return null;
  // JPEG's block starts with `Exif\0\0`, HEIC's with the TIFF header itself.
  const start = [exif.indexOf('II*\0', 0, 'latin1'), exif.indexOf('MM\0*', 0, 'latin1')]
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)[0];
  if (start === undefined) return null;
  const tags = (await exifr
    .parse(exif.subarray(start), { reviveValues: false, pick: ['DateTimeOriginal', 'OffsetTimeOriginal'] })
    .catch(() => null)) as { DateTimeOriginal?: string; OffsetTimeOriginal?: string } | null;
  const match = tags?.DateTimeOriginal?.match(/^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})/);
  if (!match) return null;
  const local = `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}`;
  const asUtc = new Date(`${local}Z`);
  if (
    Number.isNaN(asUtc.getTime()) ||
    asUtc.toISOString().slice(0, 19) !== local ||
    asUtc.getUTCFullYear() < 1990
  )
    return null;
  const offset = /^[+-](0\d|1[0-4]):[0-5]\d$/.test(tags?.OffsetTimeOriginal ?? '')
    ? tags!.OffsetTimeOriginal!
    : null;
  return { local, offset };
}
