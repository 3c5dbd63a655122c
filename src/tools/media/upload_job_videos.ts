import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import {
  inPartOrder,
  planUpload,
  roomsFiled,
  undoableUpload,
  uploadCounts,
} from '../../domain/media/upload-records';
import { toVideo, videosQuery, type Video, type VideoRow } from '../../domain/media/video-records';
import type { StoredVideoFacts } from '../../domain/media/video-intake';

/**
 * Saves the videos the intake prepared (their files and stills are stored already). A video the
 * job has (same content) is answered as that video; the rest are added with their rooms, dated
 * by the recording time the file states, else by now.
 */
export const upload_job_videos: WriteHandler<'upload_job_videos'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const plan = await planUpload(ctx, 'videos', 'vid', job.id, body.videos, body.room);
  const facts = new Map<string, StoredVideoFacts>(
    (
      await db('stored_files')
        .where({ company_id: caller.companyId })
        .whereIn(
          'sha256',
          plan.added.map((a) => a.file.sha256),
        )
        .select('sha256', 'facts')
    ).map((row: { sha256: string; facts: StoredVideoFacts }) => [row.sha256, row.facts]),
  );
  await ctx.rows.insertMany(
    'videos',
    plan.added.map(({ id, file, room }) => {
      const recorded = facts.get(file.sha256)?.recorded_at ?? null;
      return {
        id,
        job_id: job.id,
        sha256: file.sha256,
        room,
        caption: file.caption ?? null,
        name: file.name ?? file.file_name,
        recorded_at: recorded ?? new Date(),
        recorded_at_source: recorded ? 'metadata' : 'upload_time',
        uploaded_by: caller.personId,
        uploaded_via: body.via,
      };
    }),
  );
  if (plan.added.length > 0) {
    const rooms = roomsFiled(plan);
    const seconds =
      Math.round(
        plan.added.reduce((sum, a) => sum + (facts.get(a.file.sha256)?.duration_seconds ?? 0), 0) * 1000,
      ) / 1000;
    ctx.changes.add(
      {
        kind: 'files',
        data: {
          action: 'videos.uploaded',
          video_ids: plan.added.map((a) => a.id),
          count: plan.added.length,
          seconds,
          rooms,
          rooms_added: plan.roomsAdded,
          via: body.via,
        },
        summary: `${plan.added.length} video${plan.added.length === 1 ? '' : 's'} (${Math.round(seconds)} s) added to #${job.job_number} (${rooms.join(', ')}) by ${caller.personName}`,
        job: jobRefOf(job),
        recordId: plan.added[0].id,
      },
      { undo: undoableUpload(ctx, body.via) },
    );
  }
  const rows = (await videosQuery(db, caller.companyId).whereIn('v.id', [
    ...new Set(plan.idOfPart),
  ])) as VideoRow[];
  const videos = new Map<string, Video>(
    await Promise.all(rows.map(async (row) => [row.id, await toVideo(ctx, caller, row)] as const)),
  );
  return {
    job_id: job.id,
    videos: inPartOrder(plan, videos),
    ...uploadCounts(plan),
  };
};
