/**
 * Photo locations stay private (#14): exports share a copy of an original without its GPS and
 * XMP location tags, with nothing else changed (the image data is the one uploaded). ExifTool
 * (exiftool-vendored: a few long-lived Perl processes, outside the event loop) removes the tags;
 * exifr tells first whether there is anything to remove, so that most photos are shared as they
 * are.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import exifr from 'exifr';
import { ExifTool } from 'exiftool-vendored';

export interface ShareableCopy {
  path: string;
  sha256: string;
}

const REMOVE_LOCATION = ['-gps:all=', '-xmp-exif:all=', '-overwrite_original'];

export class LocationRemover {
  private readonly exiftool: ExifTool;

  constructor(processes: number) {
    this.exiftool = new ExifTool({ maxProcs: processes, taskTimeoutMillis: 30_000 });
  }

  /** A copy of `source` without its location, written in `outDir`; null when it carries none. */
  async shareableCopy(source: string, outDir: string): Promise<ShareableCopy | null> {
    if (!(await hasLocation(source))) return null;
    const copy = path.join(outDir, 'shareable');
    await copyFile(source, copy);
    await this.exiftool.write(copy, {}, { writeArgs: REMOVE_LOCATION });
    return { path: copy, sha256: await sha256Of(copy) };
  }

  async close(): Promise<void> {
    await this.exiftool.end();
  }
}

async function hasLocation(file: string): Promise<boolean> {
  try {
    const gps = await exifr.gps(file);
    return gps !== undefined && gps !== null && Number.isFinite(gps.latitude);
  } catch {
    return false; // no readable EXIF: nothing to remove
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}
