import { lockedJob, type WriteHandler } from '../tool';
import { invalidRequest } from '../../platform/errors';
import { jobRefOf } from '../../domain/jobs/job-records';
import {
  photosOfJob,
  photosQuery,
  refuseLaterTimes,
  toPhoto,
  type PhotoRow,
} from '../../domain/media/photo-records';

export const update_photos: WriteHandler<'update_photos'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const ids = body.photos.map((p) => p.photo_id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw invalidRequest([{ path: '/body/photos', message: `names photo ${twice} twice` }]);
  await photosOfJob(db, caller.companyId, job.id, ids);

  refuseLaterTimes(body.photos.map((p, i) => ({ taken_at: p.taken_at, path: `/body/photos/${i}/taken_at` })));

  const fields = new Set<'caption' | 'name' | 'taken_at'>();
  for (const change of body.photos) {
    const patch: {
      caption?: string | null;
      name?: string | null;
      taken_at?: Date;
      taken_at_source?: 'given';
    } = {};
    if (change.caption !== undefined)
      patch.caption = change.caption === null ? null : change.caption.trim() || null;
    if (change.name !== undefined) patch.name = change.name === null ? null : change.name.trim() || null;
    if (change.taken_at !== undefined) {
      patch.taken_at = new Date(change.taken_at);
      patch.taken_at_source = 'given';
    }
    for (const field of ['caption', 'name', 'taken_at'] as const) if (field in patch) fields.add(field);
    await ctx.rows.update('photos', change.photo_id, patch);
  }
  ctx.changes.add(
    {
      kind: 'files',
      data: { action: 'photos.updated', photo_ids: ids, fields: [...fields].sort() },
      summary: `${[...fields].sort().join(' and ')} of ${ids.length} photo${ids.length === 1 ? '' : 's'} on #${job.job_number} changed by ${caller.personName}`,
      job: jobRefOf(job),
      recordId: ids[0],
    },
    { undo: true },
  );
  const rows = (await photosQuery(db, caller.companyId).whereIn('ph.id', ids)) as PhotoRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { job_id: job.id, photos: await Promise.all(ids.map((id) => toPhoto(ctx, caller, byId.get(id)!))) };
};
