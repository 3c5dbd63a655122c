import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import { addJobRooms, jobRooms, photosOfJob, roomNamed, UNSORTED } from '../../domain/media/photo-records';

export const move_photos: WriteHandler<'move_photos'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const photos = await photosOfJob(db, caller.companyId, job.id, body.photo_ids);
  const rooms = await jobRooms(db, job.id);
  const room = roomNamed(body.room, rooms);
  const roomsAdded = await addJobRooms(ctx, job.id, rooms, [room]);
  const same = (a: string | null) =>
    a === null ? room === null : room !== null && a.toLowerCase() === room.toLowerCase();
  const moving = photos.filter((photo) => !same(photo.room));
  for (const photo of moving) await ctx.rows.update('photos', photo.id, { room });
  const where = room ?? UNSORTED;
  if (moving.length > 0) {
    ctx.changes.add(
      {
        kind: 'files',
        data: {
          action: 'photos.moved',
          photo_ids: moving.map((p) => p.id),
          room: where,
          rooms_added: roomsAdded,
        },
        summary: `${moving.length} photo${moving.length === 1 ? '' : 's'} on #${job.job_number} moved to ${where} by ${caller.personName}`,
        job: jobRefOf(job),
        recordId: moving[0].id,
      },
      { undo: true },
    );
  }
  return {
    job_id: job.id,
    room: where,
    moved: moving.map((p) => p.id),
    unchanged: photos.filter((photo) => same(photo.room)).map((p) => p.id),
    rooms_added: roomsAdded,
  };
};
