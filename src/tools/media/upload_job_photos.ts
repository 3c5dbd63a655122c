import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import {
  photosQuery,
  refuseLaterTimes,
  toPhoto,
  type Photo,
  type PhotoRow,
} from '../../domain/media/photo-records';
import {
  inPartOrder,
  planUpload,
  roomsFiled,
  undoableUpload,
  uploadCounts,
} from '../../domain/media/upload-records';
import { doneBy, onSiteTeammate } from '../../domain/people/on-site';
import { takenAt, takenTimes } from '../../domain/media/taken-times';

/**
 * Saves the photos the intake prepared (their files are stored already). A photo the job has
 * (same content) is answered as that photo; the rest are added with their rooms.
 */
export const upload_job_photos: WriteHandler<'upload_job_photos'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const onSite = await onSiteTeammate(db, caller, body.by);
  refuseLaterTimes([{ taken_at: body.taken_at, path: '/body/meta/taken_at' }]);
  const plan = await planUpload(ctx, 'photos', 'pho', job.id, body.photos, body.room);
  const times = await takenTimes(
    db,
    caller.companyId,
    caller.timezone,
    plan.added.map((a) => a.file.sha256),
  );
  await ctx.rows.insertMany(
    'photos',
    plan.added.map(({ id, file, room }) => ({
      id,
      job_id: job.id,
      sha256: file.sha256,
      room,
      caption: file.caption ?? null,
      name: file.name ?? file.file_name,
      ...takenAt(times.get(file.sha256), body.taken_at),
      uploaded_by: caller.personId,
      on_site_by: onSite?.id ?? null,
      uploaded_via: body.via,
    })),
  );
  if (plan.added.length > 0) {
    const rooms = roomsFiled(plan);
    ctx.changes.add(
      {
        kind: 'files',
        data: {
          action: 'photos.uploaded',
          photo_ids: plan.added.map((a) => a.id),
          count: plan.added.length,
          rooms,
          rooms_added: plan.roomsAdded,
          via: body.via,
          on_site_by: onSite,
        },
        summary: `${plan.added.length} photo${plan.added.length === 1 ? '' : 's'} added to #${job.job_number} (${rooms.join(', ')}) ${doneBy(caller, onSite)}`,
        job: jobRefOf(job),
        recordId: plan.added[0].id,
      },
      { undo: undoableUpload(ctx, body.via) },
    );
  }
  const rows = (await photosQuery(db, caller.companyId).whereIn('ph.id', [
    ...new Set(plan.idOfPart),
  ])) as PhotoRow[];
  const photos = new Map<string, Photo>(
    await Promise.all(rows.map(async (row) => [row.id, await toPhoto(ctx, caller, row)] as const)),
  );
  return {
    job_id: job.id,
    photos: inPartOrder(plan, photos),
    ...uploadCounts(plan),
  };
};
