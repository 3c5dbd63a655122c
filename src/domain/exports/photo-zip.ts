/**
 * The ZIP of export_job_photos, streamed with yazl: a folder per room holding each photo's
 * shareable original (its location taken out, ./../media/photo-location.ts), then manifest.csv.
 * One photo's file is open at a time and the ZIP is read only as fast as the client takes it, so
 * memory does not grow with the number of photos; yazl writes ZIP64 past 4 GB.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import type { Knex } from 'knex';
import { fileStamp } from '../../platform/local-time';
import { byRoom, jobRooms, photosQuery, UNSORTED, whereRoom, type PhotoRow } from '../media/photo-records';
import type { Deps } from '../services';
import { storageKey } from '../media/storage-keys';

export interface ZipPhotoRow extends PhotoRow {
  shareable_sha256: string | null;
}

/** All the job's photos, one room's (`null`: Unsorted), or the ids chosen. */
export interface ZipSelection {
  room?: string | null;
  photoIds?: string[];
}

export function zipPhotosQuery(
  db: Knex,
  companyId: string,
  jobId: string,
  selection: ZipSelection,
): Knex.QueryBuilder {
  const query = photosQuery(db, companyId).where('ph.job_id', jobId).select('f.shareable_sha256');
  if (selection.photoIds?.length) query.whereIn('ph.id', selection.photoIds);
  else if (selection.room !== undefined) whereRoom(query, 'ph.room', selection.room);
  return query;
}

/** Each chunk passes through yazl's CRC and counting steps: 1 MiB reads made the ZIP twice as fast as 64 KiB ones here (bench:exports). */
const ZIP_READ_BYTES = 1024 * 1024;
const EXTENSIONS: Record<PhotoRow['format'], string> = { jpeg: 'jpg', png: 'png', heic: 'heic' };
const MANIFEST_HEADER = [
  'file',
  'room',
  'caption',
  'name',
  'taken_at',
  'taken_at_source',
  'uploaded_by',
  'taken_on_site_by',
  'photo_id',
  'sha256',
  'original_sha256',
  'location_removed',
];

export async function streamPhotoZip(
  deps: Deps,
  companyId: string,
  timezone: string,
  jobId: string,
  selection: ZipSelection,
  out: Writable,
): Promise<void> {
  const rows = byRoom(
    await jobRooms(deps.db, jobId),
    (await zipPhotosQuery(deps.db, companyId, jobId, selection)) as ZipPhotoRow[],
  );
  const zip = new yazl.ZipFile();
  const manifest: string[][] = [MANIFEST_HEADER];
  const taken = new Set<string>();
  for (const row of rows) {
    const file = entryName(row, timezone, taken);
    zip.addReadStreamLazy(file, { compress: false, mtime: new Date(row.taken_at) }, (done) => {
      openShareable(deps, companyId, row).then(
        (opened) => {
          manifest.push([
            file,
            row.room ?? UNSORTED,
            row.caption ?? '',
            row.name ?? '',
            new Date(row.taken_at).toISOString(),
            row.taken_at_source,
            row.uploader_name,
            row.on_site_by_name ?? row.uploader_name,
            row.id,
            opened.sha256,
            row.sha256,
            opened.sha256 === row.sha256 ? 'no' : 'yes',
          ]);
          done(null, opened.stream);
        },
        (error: unknown) => done(error, Readable.from([])),
      );
    });
  }
  // Asked for once every photo is in: by then each has its line.
  zip.addReadStreamLazy('manifest.csv', { compress: true }, (done) =>
    done(null, Readable.from([manifest.map(csvLine).join('')])),
  );
  zip.end();
  await pipeline(zip.outputStream, out);
}

/** `Kitchen/2026-11-20 14-03-05 Water under sink.jpg` (its caption, else its name); a second photo of the same name gets ` (2)`. */
function entryName(row: PhotoRow, timezone: string, taken: Set<string>): string {
  const label = safeName(row.caption || (row.name ?? '').replace(/\.(jpe?g|png|hei[cf])$/i, ''))
    .slice(0, 80)
    .trim();
  const base = `${safeName(row.room ?? UNSORTED) || UNSORTED}/${fileStamp(new Date(row.taken_at), timezone)}${label ? ` ${label}` : ''}`;
  const extension = EXTENSIONS[row.format];
  let name = `${base}.${extension}`;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base} (${n}).${extension}`;
  taken.add(name.toLowerCase());
  return name;
}

/** Characters no file system refuses: no separators, reserved punctuation or control characters. */
function safeName(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
      .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, ' ')
      .replace(/\s+/g, ' ')
      .replace(/^[.\s]+|[.\s]+$/g, '')
  );
}

/** A field a spreadsheet reads as text: quoted when needed, and never as a formula. */
function csvLine(fields: string[]): string {
  return `${fields
    .map((field) => {
      const text = /^[=+\-@\t\r]/.test(field) ? `'${field}` : field;
      return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    })
    .join(',')}\r\n`;
}

/** The photo as exports share it; a photo stored before locations were taken out is looked at now, once. */
async function openShareable(
  deps: Deps,
  companyId: string,
  row: ZipPhotoRow,
): Promise<{ stream: Readable; sha256: string }> {
  const sha256 = row.shareable_sha256 ?? (await makeShareable(deps, companyId, row));
  const opened = await deps.media.files.open(
    storageKey(companyId, row.sha256, sha256 === row.sha256 ? 'original' : 'shareable'),
    undefined,
    { chunkBytes: ZIP_READ_BYTES },
  );
  if (!opened) throw new Error(`stored file of photo ${row.id} is missing`);
  return { stream: opened.stream, sha256 };
}

async function makeShareable(deps: Deps, companyId: string, row: ZipPhotoRow): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'shareable-'));
  try {
    const original = path.join(dir, 'original');
    const opened = await deps.media.files.open(storageKey(companyId, row.sha256, 'original'));
    if (!opened) throw new Error(`stored file of photo ${row.id} is missing`);
    await pipeline(opened.stream, createWriteStream(original));
    const copy = await deps.media.locations.shareableCopy(original, dir);
    if (copy)
      await deps.media.files.putFile(
        storageKey(companyId, row.sha256, 'shareable'),
        copy.path,
        `image/${row.format}`,
      );
    const sha256 = copy?.sha256 ?? row.sha256;
    await deps
      .db('stored_files')
      .where({ company_id: companyId, sha256: row.sha256 })
      .update({ shareable_sha256: sha256 });
    return sha256;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
