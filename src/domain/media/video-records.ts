/** Videos as the spec shows them: a video row points at its stored file, whose facts ffprobe read. */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import type { CallContext } from '../../platform/handler';
import { fileLink } from './file-links';
import { joinStoredFile, UNSORTED } from './photo-records';
import type { StoredVideoFacts } from './video-intake';
import type { Caller } from '../../platform/caller';

export type Video = components['schemas']['Video'];

export interface VideoRow {
  id: string;
  job_id: string;
  sha256: string;
  room: string | null;
  caption: string | null;
  name: string | null;
  recorded_at: Date;
  recorded_at_source: Video['recorded_at_source'];
  uploaded_by: string;
  uploader_name: string;
  uploaded_via: Video['uploaded_via'];
  created_at: Date;
  format: Video['format'];
  bytes: number | string;
  width: number;
  height: number;
  facts: StoredVideoFacts;
}

/** The company's videos with their stored file's facts and uploader. */
export function videosQuery(db: Knex, companyId: string): Knex.QueryBuilder {
  return joinStoredFile(db('videos as v'), 'v')
    .join('people as p', 'p.id', 'v.uploaded_by')
    .where('v.company_id', companyId)
    .select('v.*', 'p.name as uploader_name', 'f.format', 'f.bytes', 'f.width', 'f.height', 'f.facts');
}

export async function toVideo(
  ctx: Pick<CallContext, 'links' | 'config'>,
  caller: Caller,
  row: VideoRow,
): Promise<Video> {
  const [play, still] = await Promise.all([
    fileLink(ctx, caller.companyId, 'videos', row.id, 'play'),
    fileLink(ctx, caller.companyId, 'videos', row.id, 'still'),
  ]);
  return {
    id: row.id,
    job_id: row.job_id,
    room: row.room ?? UNSORTED,
    caption: row.caption,
    name: row.name,
    recorded_at: new Date(row.recorded_at).toISOString(),
    recorded_at_source: row.recorded_at_source,
    duration_seconds: row.facts.duration_seconds,
    format: row.format,
    codec: row.facts.codec,
    width: row.width,
    height: row.height,
    bytes: Number(row.bytes),
    sha256: row.sha256,
    uploaded_by: { id: row.uploaded_by, name: row.uploader_name },
    uploaded_via: row.uploaded_via,
    uploaded_at: new Date(row.created_at).toISOString(),
    links: { play: play.url, still: still.url, expires_at: new Date(play.expires * 1000).toISOString() },
  };
}
