import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, pageOf } from '../../platform/pagination';
import { resolveJob } from '../../domain/jobs/job-records';
import { jobRooms, roomNamed, whereRoom } from '../../domain/media/photo-records';
import { toVideo, videosQuery, type VideoRow } from '../../domain/media/video-records';

const DEFAULT_LIMIT = 25;

export const list_job_videos: ReadHandler<'list_job_videos'> = async (ctx, { path, query }) => {
  const { db, caller } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const videos = videosQuery(db, caller.companyId).where('v.job_id', job.id);
  if (query.room !== undefined)
    whereRoom(videos, 'v.room', roomNamed(query.room, await jobRooms(db, job.id)));
  if (query.cursor) {
    const after = decodeCursor(query.cursor, { at: 'text', id: 'text' });
    videos.whereRaw('(v.recorded_at, v.id) < (?::timestamptz, ?)', [after.at, after.id]);
  }
  const rows = (await videos
    .orderBy([
      { column: 'v.recorded_at', order: 'desc' },
      { column: 'v.id', order: 'desc' },
    ])
    .limit(limit + 1)) as VideoRow[];
  const page = pageOf(
    rows,
    limit,
    (row) => row,
    (row) => encodeCursor({ at: new Date(row.recorded_at).toISOString(), id: row.id }),
  );
  const [{ total }] = (await db('videos').where({ job_id: job.id }).count({ total: '*' })) as {
    total: number | string;
  }[];
  return {
    job_id: job.id,
    data: await Promise.all(page.data.map((row) => toVideo(ctx, caller, row))),
    next_cursor: page.next_cursor,
    total: Number(total),
  };
};
