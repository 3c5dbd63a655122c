import { ApiError } from '../../platform/errors';
import type { ReadHandler } from '../tool';
import { resolveJob } from '../../domain/jobs/job-records';
import { jobRooms, photosOfJob, roomNamed, UNSORTED } from '../../domain/media/photo-records';
import { exportExpiry, zipUrl, type ZipLink } from '../../domain/exports/export-links';
import { zipPhotosQuery, type ZipSelection } from '../../domain/exports/photo-zip';

export const export_job_photos: ReadHandler<'export_job_photos'> = async (ctx, { path, query }) => {
  const { db, caller } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  if (query.room !== undefined && query.photo_ids)
    throw new ApiError(400, 'invalid_request', 'Give room or photo_ids, not both.', {
      errors: [{ path: '/query/photo_ids', message: 'cannot be given with room' }],
    });
  const selection: ZipSelection = {};
  if (query.photo_ids)
    selection.photoIds = (await photosOfJob(db, caller.companyId, job.id, query.photo_ids)).map(
      (photo) => photo.id,
    );
  if (query.room !== undefined) selection.room = await knownRoom(db, job, query.room);
  const sizes = (await zipPhotosQuery(db, caller.companyId, job.id, selection)
    .clearSelect()
    .select(db.raw('count(*)::int as count'), db.raw('coalesce(sum(f.bytes), 0)::bigint as bytes'))) as {
    count: number;
    bytes: string | number;
  }[];
  const expires = exportExpiry(ctx, query.expires_in);
  const room = selection.room === undefined ? null : (selection.room ?? UNSORTED);
  const link: ZipLink = {
    purpose: 'export_zip',
    companyId: caller.companyId,
    keyId: caller.keyId,
    jobId: job.id,
    params: { r: room ?? '', p: (selection.photoIds ?? []).join(',') },
    expires,
  };
  const fileName = `job-${job.job_number}-photos${
    room
      ? `-${room
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')}`
      : ''
  }.zip`;
  return {
    url: await zipUrl(ctx, link, fileName),
    file_name: fileName,
    expires_at: new Date(expires * 1000).toISOString(),
    job_id: job.id,
    job_number: job.job_number,
    room,
    photo_count: sizes[0].count,
    bytes: Number(sizes[0].bytes),
  };
};

/** The room as the job names it (null for Unsorted); a room the job does not have is a 404. */
async function knownRoom(
  db: Parameters<typeof jobRooms>[0],
  job: { id: string; job_number: number },
  given: string,
): Promise<string | null> {
  const rooms = await jobRooms(db, job.id);
  const room = roomNamed(given, rooms);
  if (room !== null && !rooms.includes(room))
    throw new ApiError(
      404,
      'not_found',
      `Job #${job.job_number} has no room "${given}"; its rooms: ${[...rooms, UNSORTED].join(', ')}.`,
    );
  return room;
}
