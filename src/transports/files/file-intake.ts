/**
 * The intake of every multipart upload (photos, videos, documents), over the API and from the
 * upload page: receive the parts (streamed to temporary files), read `meta`, answer a replay
 * before any costly work, examine every file the company does not have yet off the event loop,
 * store originals and renditions, then save the records through the write pipeline. One refused
 * part refuses the request: nothing is saved and nothing of it stays in storage. What differs
 * between photos, videos and documents is a `FileKind`.
 */
import type { Request } from 'express';
import { invalidRequest } from '../../platform/errors';
import { checkValue } from '../../platform/validation';
import type { ToolAnswer } from '../../platform/pipeline';
import { resolveJob } from '../../domain/jobs/job-records';
import { discard, receiveParts } from './receive-parts';
import type { PreparedFile, PreparedUpload } from '../../domain/media/prepared-upload';
import type { Deps } from '../../domain/services';
import type { FileKind } from '../../domain/media/file-kind';
import { storeNewFiles } from '../../domain/media/store-files';
import type { Caller } from '../../platform/caller';
import type { CompanyBytePace, UploadShares } from '../../platform/fair-share';

/** Who uploads, to which job, and through what. */
export interface Uploader {
  caller: Caller;
  jobRef: string;
  via: PreparedUpload['via'];
  /** The teammate an upload link was made for (their id): the page's photos are theirs. */
  by?: string;
}

interface UploadMeta {
  operation_id: string;
  room?: string;
  by?: string;
  /** Photos: when they were taken, for those whose files carry no camera time. */
  taken_at?: string;
  items?: Omit<PreparedFile, 'sha256' | 'file_name'>[];
}

/** Takes the upload within the company's share of the node's uploads: how many at once, how fast. */
export function intakeFiles(
  deps: Deps,
  req: Request,
  who: Uploader,
  kind: FileKind,
  shares: UploadShares,
): Promise<ToolAnswer> {
  return shares.slots.run(who.caller.companyId, () => intake(deps, req, who, kind, shares.pace));
}

async function intake(
  deps: Deps,
  req: Request,
  who: Uploader,
  kind: FileKind,
  pace: CompanyBytePace,
): Promise<ToolAnswer> {
  const call = deps.pipeline.begin(kind.tool, who.caller); // a read key is refused before the files are read
  checkValue('JobRef', who.jobRef, '/path/job_id');
  await resolveJob(deps.db, who.caller, who.jobRef); // an unknown job is refused before the files are read
  const upload = await receiveParts(
    req,
    kind.limits(deps),
    { idleMs: deps.config.uploadIdleMs, stopping: deps.stopping },
    (bytes) => pace.delayFor(who.caller.companyId, bytes),
  );
  try {
    const meta = readMeta(kind, upload.meta, upload.files.length);
    const items: PreparedFile[] = upload.files.map((file, i) => ({
      sha256: file.sha256,
      file_name: file.fileName,
      ...meta.items?.[i],
    }));
    const by = who.by ?? meta.by;
    const body = {
      operation_id: meta.operation_id,
      via: who.via,
      ...(meta.room ? { room: meta.room } : {}),
      ...(by ? { by } : {}),
      ...(meta.taken_at ? { taken_at: meta.taken_at } : {}),
      [`${kind.part}s`]: items,
    };
    const input = { path: { job_id: who.jobRef }, query: {}, body };
    const checked = await call.check(input);
    if ('replay' in checked) return checked.replay;
    await storeNewFiles(deps, kind, who.caller.companyId, upload.files, upload.dir);
    return await checked.run();
  } finally {
    await discard(upload);
  }
}

function readMeta(kind: FileKind, text: string | null, fileCount: number): UploadMeta {
  const items = `${kind.part}s`;
  if (text === null)
    throw invalidRequest([
      { path: '/body/meta', message: 'is required: a part named meta holding JSON with operation_id' },
    ]);
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    throw invalidRequest([{ path: '/body/meta', message: 'is not valid JSON' }]);
  }
  checkValue(kind.metaSchema, meta, '/body/meta');
  if (fileCount === 0)
    throw invalidRequest([
      { path: `/body/${kind.part}`, message: `is required: send one part named ${kind.part} per file` },
    ]);
  const {
    operation_id,
    room,
    by,
    taken_at,
    [items]: given,
  } = meta as { operation_id: string; room?: string; by?: string; taken_at?: string } & Record<
    string,
    UploadMeta['items']
  >;
  if (given && given.length !== fileCount) {
    throw invalidRequest([
      {
        path: `/body/meta/${items}`,
        message: `has ${given.length} entries for ${fileCount} ${kind.part} parts: give one entry per file, in order`,
      },
    ]);
  }
  return { operation_id, room, by, taken_at, items: given };
}
