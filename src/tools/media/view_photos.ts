import type { ReadHandler } from '../../platform/handler';
import { invalidRequest, notFound } from '../../platform/errors';
import { resolveJob } from '../jobs/job-records';
import { jobRooms, photoLabels, photoLink, photosQuery, roomNamed, type PhotoRow } from './photo-records';

const DEFAULT_LIMIT = 4;

export const view_photos: ReadHandler<'view_photos'> = async (ctx, { query }) => {
  const { db, caller } = ctx;
  const ids = query.photo_ids === undefined ? undefined : ([] as string[]).concat(query.photo_ids);
  if ((ids === undefined) === (query.job_id === undefined)) {
    throw invalidRequest([{ path: '/query', message: 'give photo_ids, or job_id (with an optional room), not both' }]);
  }
  const photos = photosQuery(db, caller.companyId).join('jobs as j', 'j.id', 'ph.job_id').select('j.job_number');
  if (ids) photos.whereIn('ph.id', ids);
  else {
    const job = await resolveJob(db, caller, query.job_id!);
    photos.where('ph.job_id', job.id);
    if (query.room !== undefined) {
      const room = roomNamed(query.room, await jobRooms(db, job.id));
      if (room === null) photos.whereNull('ph.room');
      else photos.whereRaw('lower(ph.room) = lower(?)', [room]);
    }
    photos.orderBy([{ column: 'ph.taken_at', order: 'desc' }, { column: 'ph.id', order: 'desc' }]).limit(query.limit ?? DEFAULT_LIMIT);
  }
  const rows = (await photos) as (PhotoRow & { job_number: number })[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = ids?.find((id) => !byId.has(id));
  if (missing) throw notFound(`photo ${missing}`);
  const ordered = ids ? [...new Set(ids)].map((id) => byId.get(id)!) : rows;
  return {
    photos: await Promise.all(
      ordered.map(async (row) => {
        const web = await photoLink(ctx, caller.companyId, row.id, 'web');
        return {
          ...photoLabels(row),
          job_number: row.job_number,
          url: web.url,
          expires_at: new Date(web.expires * 1000).toISOString(),
        };
      }),
    ),
  };
};
