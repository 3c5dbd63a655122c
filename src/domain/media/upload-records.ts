/**
 * What the three upload tools share once their files are stored: which parts are new to the job
 * (a content the job has is answered as its record), the room of each new one (rooms the job
 * lacks are added), and the answer's records in the order of the parts with `duplicate` set.
 */
import type { WriteCallContext } from '../../platform/handler';
import { newId, type IdPrefix } from '../../platform/ids';
import type { PreparedFile } from './prepared-upload';
import { addJobRooms, jobRooms, roomNamed, UNSORTED } from './photo-records';

export interface NewRecord {
  id: string;
  file: PreparedFile;
  /** As the job spells it; null for Unsorted. */
  room: string | null;
}

export interface UploadPlan {
  /** The record of each part, in order. */
  idOfPart: string[];
  added: NewRecord[];
  roomsAdded: string[];
}

export async function planUpload(
  ctx: WriteCallContext,
  table: 'photos' | 'videos' | 'documents',
  idPrefix: IdPrefix,
  jobId: string,
  files: PreparedFile[],
  room: string | undefined,
): Promise<UploadPlan> {
  const { db } = ctx;
  const rooms = await jobRooms(db, jobId);
  const shas = [...new Set(files.map((f) => f.sha256))];
  const existing = new Map<string, string>(
    (await db(table).where({ job_id: jobId }).whereIn('sha256', shas).select('sha256', 'id')).map(
      (row: { sha256: string; id: string }) => [row.sha256, row.id],
    ),
  );
  const added: NewRecord[] = [];
  const idOfPart = files.map((file) => {
    const known = existing.get(file.sha256);
    if (known) return known;
    const id = newId(idPrefix);
    existing.set(file.sha256, id);
    added.push({ id, file, room: roomNamed(file.room ?? room, rooms) });
    return id;
  });
  const roomsAdded = await addJobRooms(
    ctx,
    jobId,
    rooms,
    added.map((a) => a.room),
  );
  const known = [...rooms, ...roomsAdded];
  for (const record of added)
    if (record.room !== null)
      record.room = known.find((r) => r.toLowerCase() === record.room!.toLowerCase()) ?? record.room;
  await db('stored_files')
    .where({ company_id: ctx.caller.companyId })
    .whereIn('sha256', shas)
    .update({ last_used_at: db.fn.now() });
  return { idOfPart, added, roomsAdded };
}

/** The rooms the new records went to (Unsorted included), for the change feed. */
export function roomsFiled(plan: UploadPlan): string[] {
  return [...new Set(plan.added.map((a) => a.room ?? UNSORTED))];
}

/** What every upload answers besides its records: how many were new, how many the job had, the rooms added. */
export function uploadCounts(plan: UploadPlan): { added: number; duplicates: number; rooms_added: string[] } {
  return {
    added: plan.added.length,
    duplicates: plan.idOfPart.length - plan.added.length,
    rooms_added: plan.roomsAdded,
  };
}

/** The records of the parts in order, each with `duplicate`: a part is new only the first time its record appears among the added. */
export function inPartOrder<T>(plan: UploadPlan, records: Map<string, T>): (T & { duplicate: boolean })[] {
  const newIds = new Set(plan.added.map((a) => a.id));
  const seen = new Set<string>();
  return plan.idOfPart.map((id) => {
    const duplicate = !newIds.has(id) || seen.has(id);
    seen.add(id);
    return { ...records.get(id)!, duplicate };
  });
}

/** What the upload page sends is the doing of the person at the page: the link's key cannot undo it. */
export function undoableUpload(ctx: WriteCallContext, via: 'api' | 'upload_page'): boolean {
  ctx.rows.outOfUndo = via === 'upload_page';
  return !ctx.rows.outOfUndo;
}
