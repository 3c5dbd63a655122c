import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, pageOf } from '../../platform/pagination';
import { resolveJob } from '../../domain/jobs/job-records';
import {
  jobRooms,
  photosQuery,
  roomNamed,
  toPhoto,
  UNSORTED,
  whereRoom,
  type PhotoRow,
} from '../../domain/media/photo-records';

const DEFAULT_LIMIT = 25;

export const list_job_photos: ReadHandler<'list_job_photos'> = async (ctx, { path, query }) => {
  const { db, caller } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rooms = await jobRooms(db, job.id);
  const photos = photosQuery(db, caller.companyId).where('ph.job_id', job.id);
  if (query.room !== undefined) whereRoom(photos, 'ph.room', roomNamed(query.room, rooms));
  if (query.cursor) {
    const after = decodeCursor(query.cursor, { at: 'text', id: 'text' });
    photos.whereRaw('(ph.taken_at, ph.id) < (?::timestamptz, ?)', [after.at, after.id]);
  }
  const rows = (await photos
    .orderBy([
      { column: 'ph.taken_at', order: 'desc' },
      { column: 'ph.id', order: 'desc' },
    ])
    .limit(limit + 1)) as PhotoRow[];
  const page = pageOf(
    rows,
    limit,
    (row) => row,
    (row) => encodeCursor({ at: new Date(row.taken_at).toISOString(), id: row.id }),
  );
  const counts = (await db('photos')
    .where({ job_id: job.id })
    .groupBy('room')
    .select('room', db.raw('count(*)::int as count'))) as { room: string | null; count: number }[];
  const countOf = (name: string | null) =>
    counts
      .filter((c) => (c.room === null ? name === null : c.room.toLowerCase() === name?.toLowerCase()))
      .reduce((n, c) => n + c.count, 0);
  const named = [
    ...rooms,
    ...counts
      .filter((c) => c.room !== null && !rooms.some((r) => r.toLowerCase() === c.room!.toLowerCase()))
      .map((c) => c.room!),
  ];
  return {
    job_id: job.id,
    data: await Promise.all(page.data.map((row) => toPhoto(ctx, caller, row))),
    next_cursor: page.next_cursor,
    total: counts.reduce((n, c) => n + c.count, 0),
    rooms: [
      ...named.map((name) => ({ name, count: countOf(name) })),
      { name: UNSORTED, count: countOf(null) },
    ],
  };
};
