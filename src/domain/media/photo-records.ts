/**
 * Photos as the spec shows them, and a job's rooms. A photo row points at its stored file (one
 * per company and content); the answer's links are signed and open the renditions only.
 */
import { onSiteRefOf } from '../people/on-site';
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import type { CallContext, WriteCallContext } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { invalidRequest, notFound } from '../../platform/errors';
import { fileLink } from './file-links';
import type { Caller } from '../../platform/caller';

export type Photo = components['schemas']['Photo'];

/** Photos without a room are listed, and filed back, under this name. */
export const UNSORTED = 'Unsorted';

export interface PhotoRow {
  id: string;
  job_id: string;
  sha256: string;
  room: string | null;
  caption: string | null;
  name: string | null;
  taken_at: Date;
  taken_at_source: Photo['taken_at_source'];
  uploaded_by: string;
  uploader_name: string;
  on_site_by: string | null;
  on_site_by_name: string | null;
  uploaded_via: Photo['uploaded_via'];
  created_at: Date;
  format: Photo['format'];
  bytes: number | string;
  width: number;
  height: number;
}

/** Joins a photo's, video's or document's (`alias`) stored file as `f`. */
export function joinStoredFile(query: Knex.QueryBuilder, alias: string): Knex.QueryBuilder {
  return query.join('stored_files as f', function () {
    this.on('f.company_id', `${alias}.company_id`).andOn('f.sha256', `${alias}.sha256`);
  });
}

/** Narrows to one room (a name as roomNamed gives it, any case) or, for null, to Unsorted. */
export function whereRoom(query: Knex.QueryBuilder, column: string, room: string | null): Knex.QueryBuilder {
  return room === null ? query.whereNull(column) : query.whereRaw('lower(??) = lower(?)', [column, room]);
}

/** The company's photos with their stored file's facts and uploader. */
export function photosQuery(db: Knex, companyId: string): Knex.QueryBuilder {
  return joinStoredFile(db('photos as ph'), 'ph')
    .join('people as p', 'p.id', 'ph.uploaded_by')
    .leftJoin('people as o', 'o.id', 'ph.on_site_by')
    .where('ph.company_id', companyId)
    .select(
      'ph.*',
      'p.name as uploader_name',
      'o.name as on_site_by_name',
      'f.format',
      'f.bytes',
      'f.width',
      'f.height',
    );
}

/** Photos of one job by id, in the order asked; 404 naming the first that the job does not have. */
export async function photosOfJob(
  db: Knex,
  companyId: string,
  jobId: string,
  ids: string[],
): Promise<PhotoRow[]> {
  const rows = (await photosQuery(db, companyId)
    .where('ph.job_id', jobId)
    .whereIn('ph.id', ids)) as PhotoRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing) throw notFound(`photo ${missing} on this job`);
  return ids.map((id) => byId.get(id)!);
}

/** What every answer says of a photo: where it is filed and what it shows. */
export function photoLabels(
  row: PhotoRow,
): Pick<Photo, 'id' | 'job_id' | 'room' | 'caption' | 'name' | 'taken_at'> {
  return {
    id: row.id,
    job_id: row.job_id,
    room: row.room ?? UNSORTED,
    caption: row.caption,
    name: row.name,
    // Only the upload time is known: the photo is not said to be taken then.
    taken_at: row.taken_at_source === 'upload_time' ? null : new Date(row.taken_at).toISOString(),
  };
}

export async function toPhoto(
  ctx: Pick<CallContext, 'links' | 'config'>,
  caller: Caller,
  row: PhotoRow,
): Promise<Photo> {
  const [web, thumbnail] = await Promise.all([
    fileLink(ctx, caller.companyId, 'photos', row.id, 'web'),
    fileLink(ctx, caller.companyId, 'photos', row.id, 'thumbnail'),
  ]);
  return {
    ...photoLabels(row),
    taken_at_source: row.taken_at_source,
    format: row.format,
    width: row.width,
    height: row.height,
    bytes: Number(row.bytes),
    sha256: row.sha256,
    uploaded_by: { id: row.uploaded_by, name: row.uploader_name },
    on_site_by: onSiteRefOf(row.on_site_by, row.on_site_by_name),
    uploaded_via: row.uploaded_via,
    uploaded_at: new Date(row.created_at).toISOString(),
    links: { web: web.url, thumbnail: thumbnail.url, expires_at: new Date(web.expires * 1000).toISOString() },
  };
}

/** The job's rooms: its estimates' rooms (in their order), then those photos added. */
export async function jobRooms(db: Knex, jobId: string): Promise<string[]> {
  const rows = await db
    .select('name')
    .from(
      db('estimate_rooms as r')
        .join('estimates as e', 'e.id', 'r.estimate_id')
        .where('e.job_id', jobId)
        .select('r.name', db.raw('0 as source'), 'e.created_at as at', 'r.position')
        .unionAll(
          db('job_rooms')
            .where({ job_id: jobId })
            .select('name', db.raw('1 as source'), 'created_at as at', db.raw('0 as position')),
        )
        .as('rooms'),
    )
    .orderBy(['source', 'at', 'position']);
  const seen = new Set<string>();
  return rows
    .map((row: { name: string }) => row.name)
    .filter((name) => !seen.has(name.toLowerCase()) && seen.add(name.toLowerCase()));
}

/** Photos in the job's room order (`rooms`, from jobRooms; Unsorted last), oldest first within a room. */
export function byRoom<R extends PhotoRow>(rooms: string[], rows: R[]): R[] {
  const order = rooms.map((room) => room.toLowerCase());
  const rank = (room: string | null) =>
    room === null ? Number.MAX_SAFE_INTEGER : order.indexOf(room.toLowerCase()) + 1 || order.length + 1;
  return rows.sort(
    (a, b) =>
      rank(a.room) - rank(b.room) ||
      (a.room ?? '').localeCompare(b.room ?? '') ||
      new Date(a.taken_at).getTime() - new Date(b.taken_at).getTime() ||
      a.id.localeCompare(b.id),
  );
}

/** The room as the job spells it, `null` for Unsorted, or the new name as given (trimmed). */
export function roomNamed(given: string | null | undefined, rooms: string[]): string | null {
  const name = given?.trim();
  if (!name || name.toLowerCase() === UNSORTED.toLowerCase()) return null;
  return rooms.find((room) => room.toLowerCase() === name.toLowerCase()) ?? name;
}

/** Adds to the job the rooms among `names` it lacks (undoable); returns the names added. */
export async function addJobRooms(
  ctx: WriteCallContext,
  jobId: string,
  rooms: string[],
  names: (string | null)[],
): Promise<string[]> {
  const known = new Set(rooms.map((room) => room.toLowerCase()));
  const added: string[] = [];
  for (const name of names) {
    if (name === null || known.has(name.toLowerCase())) continue;
    known.add(name.toLowerCase());
    added.push(name);
  }
  await ctx.rows.insertMany(
    'job_rooms',
    added.map((name) => ({ id: newId('jroom'), job_id: jobId, name })),
  );
  return added;
}

/** A photo's given time taken may not be after now (a minute's leeway for a phone's clock). */
const CLOCK_LEEWAY_MS = 60_000;

/** Refuses given times taken after now, naming each by its path in the body. */
export function refuseLaterTimes(given: { taken_at: string | undefined; path: string }[]): void {
  const now = Date.now();
  const errors = given.flatMap(({ taken_at, path }) =>
    taken_at !== undefined && Date.parse(taken_at) > now + CLOCK_LEEWAY_MS
      ? [{ path, message: `is after now (${new Date(now).toISOString()})` }]
      : [],
  );
  if (errors.length) throw invalidRequest(errors);
}
