import type { Knex } from 'knex';
import type { WriteHandler } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { jobRefOf, resolveJob } from '../jobs/job-records';
import { addJobRooms, jobRooms, photosQuery, roomNamed, toPhoto, UNSORTED, type Photo, type PhotoRow } from './photo-records';
import type { PreparedPhoto } from './prepared-upload';

/** The camera's time as read from the file by the intake: local time, with its offset when the camera wrote one. */
interface TakenTime {
  local: string;
  offset: string | null;
}

/**
 * Saves the photos the intake prepared (their files are stored already). A photo the job has
 * (same content) is answered as that photo; the rest are added with their rooms.
 */
export const upload_job_photos: WriteHandler<'upload_job_photos'> = async (ctx, { path, body }) => {
  const { db, caller } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  const rooms = await jobRooms(db, job.id);
  const shas = [...new Set(body.photos.map((p) => p.sha256))];
  const existing = new Map<string, string>(
    (await db('photos').where({ job_id: job.id }).whereIn('sha256', shas).select('sha256', 'id')).map((row: { sha256: string; id: string }) => [row.sha256, row.id]),
  );
  const times = await takenTimes(db, caller.companyId, caller.timezone, shas);

  const added: { id: string; photo: PreparedPhoto; room: string | null }[] = [];
  const idOfPart = body.photos.map((photo) => {
    const known = existing.get(photo.sha256);
    if (known) return known;
    const room = roomNamed(photo.room ?? body.room, rooms);
    const id = newId('pho');
    existing.set(photo.sha256, id);
    added.push({ id, photo, room });
    return id;
  });
  const roomsAdded = await addJobRooms(ctx, job.id, rooms, added.map((a) => a.room));
  const spelled = (room: string | null) => (room === null ? null : ([...rooms, ...roomsAdded].find((r) => r.toLowerCase() === room.toLowerCase()) ?? room));
  await ctx.rows.insertMany(
    'photos',
    added.map(({ id, photo, room }) => ({
      id,
      job_id: job.id,
      sha256: photo.sha256,
      room: spelled(room),
      caption: photo.caption ?? null,
      name: photo.name ?? photo.file_name,
      taken_at: times.get(photo.sha256)?.at ?? new Date(),
      taken_at_source: times.get(photo.sha256)?.source ?? 'upload_time',
      uploaded_by: caller.personId,
      uploaded_via: body.via,
    })),
  );
  await db('stored_files').where({ company_id: caller.companyId }).whereIn('sha256', shas).update({ last_used_at: db.fn.now() });

  if (added.length > 0) {
    const newRooms = [...new Set(added.map((a) => spelled(a.room) ?? UNSORTED))];
    ctx.changes.add({
      kind: 'files',
      data: { action: 'photos.uploaded', photo_ids: added.map((a) => a.id), count: added.length, rooms: newRooms, rooms_added: roomsAdded, via: body.via },
      summary: `${added.length} photo${added.length === 1 ? '' : 's'} added to #${job.job_number} (${newRooms.join(', ')}) by ${caller.personName}`,
      job: jobRefOf(job),
      recordId: added[0].id,
    });
  }
  const rows = (await photosQuery(db, caller.companyId).whereIn('ph.id', [...new Set(idOfPart)])) as PhotoRow[];
  const photos = new Map<string, Photo>(await Promise.all(rows.map(async (row) => [row.id, await toPhoto(ctx, caller, row)] as const)));
  const newIds = new Set(added.map((a) => a.id));
  const firstSeen = new Set<string>();
  return {
    job_id: job.id,
    photos: idOfPart.map((id) => {
      // A part is new only the first time its photo appears in the request.
      const duplicate = !newIds.has(id) || firstSeen.has(id);
      firstSeen.add(id);
      return { ...photos.get(id)!, duplicate };
    }),
    added: added.length,
    duplicates: idOfPart.length - added.length,
    rooms_added: roomsAdded,
  };
};

/** When each stored file was taken, by the camera's clock: with its offset, else in the company's timezone. */
async function takenTimes(db: Knex, companyId: string, timezone: string, shas: string[]): Promise<Map<string, { at: Date; source: Photo['taken_at_source'] }>> {
  const rows = (await db('stored_files').where({ company_id: companyId }).whereIn('sha256', shas).whereNotNull('taken').select('sha256', 'taken')) as { sha256: string; taken: TakenTime }[];
  const local = rows.filter((row) => row.taken.offset === null);
  const zoned = local.length
    ? new Map<string, Date>(
        (
          (await db
            .select('x.sha256', db.raw('(x.local::timestamp at time zone ?) as at', [timezone]))
            .from(db.raw('unnest(?::text[], ?::text[]) as x(sha256, local)', [local.map((r) => r.sha256), local.map((r) => r.taken.local)]))) as { sha256: string; at: Date }[]
        ).map((row) => [row.sha256, new Date(row.at)]),
      )
    : new Map<string, Date>();
  return new Map<string, { at: Date; source: Photo['taken_at_source'] }>(
    rows.map((row) =>
      row.taken.offset === null
        ? [row.sha256, { at: zoned.get(row.sha256)!, source: 'exif_without_offset' as const }]
        : [row.sha256, { at: new Date(`${row.taken.local}${row.taken.offset}`), source: 'exif' as const }],
    ),
  );
}
