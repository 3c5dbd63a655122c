import type { Knex } from 'knex';
import type { ReadHandler } from '../tool';
import { notFound } from '../../platform/errors';
import { resolveJob } from '../../domain/jobs/job-records';
import { fileLink } from '../../domain/media/file-links';
import { jobRooms, joinStoredFile, roomNamed, UNSORTED, whereRoom } from '../../domain/media/photo-records';

const DEFAULT_LIMIT = 4;

/** A photo, or a video shown by its still frame. */
export interface ViewableRow {
  kind: 'photo' | 'video';
  id: string;
  job_id: string;
  job_number: number;
  sha256: string;
  room: string | null;
  caption: string | null;
  name: string | null;
  at: Date;
  /** False for a photo of which only the upload time is known. */
  at_known: boolean;
  duration_seconds: number | null;
}

/** The company's photos and videos as one list, dated by when they were taken or recorded. */
export function viewablesQuery(db: Knex, companyId: string): Knex.QueryBuilder {
  const photos = db('photos')
    .where('company_id', companyId)
    .select(
      db.raw("'photo' as kind"),
      'id',
      'job_id',
      'sha256',
      'room',
      'caption',
      'name',
      'taken_at as at',
      db.raw("taken_at_source <> 'upload_time' as at_known"),
      db.raw('null::float8 as duration_seconds'),
    );
  const videos = joinStoredFile(db('videos as v'), 'v')
    .where('v.company_id', companyId)
    .select(
      db.raw("'video' as kind"),
      'v.id',
      'v.job_id',
      'v.sha256',
      'v.room',
      'v.caption',
      'v.name',
      'v.recorded_at as at',
      db.raw('true as at_known'),
      db.raw("(f.facts->>'duration_seconds')::float8 as duration_seconds"),
    );
  return db
    .from(photos.unionAll(videos).as('x'))
    .join('jobs as j', 'j.id', 'x.job_id')
    .select('x.*', 'j.job_number');
}

export const view_photos: ReadHandler<'view_photos'> = async (ctx, { query }) => {
  const { db, caller } = ctx;
  const ids = query.photo_ids === undefined ? undefined : ([] as string[]).concat(query.photo_ids);
  // The spec's x-query-schema: photo_ids, or job_id (with room and limit), not both.
  const shown = viewablesQuery(db, caller.companyId);
  if (ids) shown.whereIn('x.id', ids);
  else {
    const job = await resolveJob(db, caller, query.job_id!);
    shown.where('x.job_id', job.id);
    if (query.room !== undefined)
      whereRoom(shown, 'x.room', roomNamed(query.room, await jobRooms(db, job.id)));
    shown
      .orderBy([
        { column: 'x.at', order: 'desc' },
        { column: 'x.id', order: 'desc' },
      ])
      .limit(query.limit ?? DEFAULT_LIMIT);
  }
  const rows = (await shown) as ViewableRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = ids?.find((id) => !byId.has(id));
  if (missing) throw notFound(`${missing.startsWith('vid_') ? 'video' : 'photo'} ${missing}`);
  const ordered = ids ? [...new Set(ids)].map((id) => byId.get(id)!) : rows;
  return {
    photos: await Promise.all(
      ordered.map(async (row) => {
        const link =
          row.kind === 'photo'
            ? await fileLink(ctx, caller.companyId, 'photos', row.id, 'web')
            : await fileLink(ctx, caller.companyId, 'videos', row.id, 'still');
        return {
          id: row.id,
          kind: row.kind,
          job_id: row.job_id,
          job_number: row.job_number,
          room: row.room ?? UNSORTED,
          caption: row.caption,
          name: row.name,
          taken_at: row.at_known ? new Date(row.at).toISOString() : null,
          duration_seconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
          url: link.url,
          expires_at: new Date(link.expires * 1000).toISOString(),
        };
      }),
    ),
  };
};
