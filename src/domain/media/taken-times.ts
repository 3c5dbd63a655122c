/**
 * When a photo was taken: the camera's time read from its file (with its offset, else in the
 * company's timezone), else a time given with the upload, else unknown (only the upload time).
 */
import type { Knex } from 'knex';
import type { Photo } from './photo-records';

/** The camera's time as read from the file by the intake: local time, with its offset when the camera wrote one. */
interface TakenTime {
  local: string;
  offset: string | null;
}

/** The camera's time, else the time given for the upload, else only the upload time is known. */
export function takenAt(
  camera: { at: Date; source: Photo['taken_at_source'] } | undefined,
  given: string | undefined,
): { taken_at: Date; taken_at_source: Photo['taken_at_source'] } {
  if (camera) return { taken_at: camera.at, taken_at_source: camera.source };
  if (given !== undefined) return { taken_at: new Date(given), taken_at_source: 'given' };
  return { taken_at: new Date(), taken_at_source: 'upload_time' };
}

/** When each stored file was taken, by the camera's clock: with its offset, else in the company's timezone. */
export async function takenTimes(
  db: Knex,
  companyId: string,
  timezone: string,
  shas: string[],
): Promise<Map<string, { at: Date; source: Photo['taken_at_source'] }>> {
  const rows = (await db('stored_files')
    .where({ company_id: companyId })
    .whereIn('sha256', shas)
    .whereNotNull('taken')
    .select('sha256', 'taken')) as { sha256: string; taken: TakenTime }[];
  const local = rows.filter((row) => row.taken.offset === null);
  const zoned = local.length
    ? new Map<string, Date>(
        (
          (await db
            .select('x.sha256', db.raw('(x.local::timestamp at time zone ?) as at', [timezone]))
            .from(
              db.raw('unnest(?::text[], ?::text[]) as x(sha256, local)', [
                local.map((r) => r.sha256),
                local.map((r) => r.taken.local),
              ]),
            )) as { sha256: string; at: Date }[]
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
