/**
 * The intake of every multipart upload (photos, videos, documents), over the API and from the
 * upload page: receive the parts (streamed to temporary files), read `meta`, answer a replay
 * before any costly work, examine every file the company does not have yet off the event loop,
 * store originals and renditions, then save the records through the write pipeline. One refused
 * part refuses the request: nothing is saved and nothing of it stays in storage. What differs
 * between photos, videos and documents is a `FileKind`.
 */
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Request } from 'express';
import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import spec from '../../generated/openapi.json';
import { ApiError, invalidRequest } from '../../platform/errors';
import type { Caller } from '../../platform/handler';
import { checkScope, earlierAnswer, runTool, type Deps, type ToolAnswer } from '../../platform/pipeline';
import { resolveJob } from '../../domain/jobs/job-records';
import { discard, receiveParts, type ReceivedFile, type UploadLimits } from './receive-parts';
import { storageKey, type FileVariant } from '../../domain/media/photo-records';
import type { PreparedFile, PreparedUpload, UploadTool } from '../../domain/media/prepared-upload';

/** What examining a new file found: the stored file's facts and the renditions written for it. */
export interface Examined {
  format: string;
  contentType: string;
  width: number | null;
  height: number | null;
  /** The camera's time (photos): local, with its offset when it wrote one. */
  taken: { local: string; offset: string | null } | null;
  renditions: Record<string, unknown>;
  facts: Record<string, unknown> | null;
  /** A photo's: the SHA-256 of what exports share (the original, or its copy without location). */
  shareableSha256: string | null;
  /** Files beside the original, by variant. */
  files: { variant: Exclude<FileVariant, 'original'>; path: string; contentType: string }[];
}

/** What makes an upload of photos, videos or documents what it is. */
export interface FileKind {
  tool: UploadTool;
  /** `photo`, `video` or `document`: the part name, and the stored file's kind. */
  part: 'photo' | 'video' | 'document';
  limits(deps: Deps): UploadLimits;
  /** The spec's schema of the `meta` part. */
  metaSchema: string;
  /** Stored files of these formats are this kind's as they are (same content, same renditions). */
  formats: readonly string[];
  /** Checks one new file by its content and writes its renditions into `outDir`. */
  examine(deps: Deps, file: ReceivedFile, outDir: string): Promise<Examined | ApiError>;
}

/** Who uploads, to which job, and through what. */
export interface Uploader {
  caller: Caller;
  jobRef: string;
  via: PreparedUpload['via'];
}

interface UploadMeta {
  operation_id: string;
  room?: string;
  items?: Omit<PreparedFile, 'sha256' | 'file_name'>[];
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema(spec, 'spec');
const validators = new Map<string, ValidateFunction>();
const validJobRef = ajv.compile<string>({ $ref: 'spec#/components/schemas/JobRef' });

export async function intakeFiles(deps: Deps, req: Request, who: Uploader, kind: FileKind): Promise<ToolAnswer> {
  checkScope(kind.tool, who.caller);
  if (!validJobRef(who.jobRef)) throw invalidRequest([{ path: '/path/job_id', message: 'must be a job id (job_…) or a job number (16 or #16)' }]);
  await resolveJob(deps.db, who.caller, who.jobRef); // an unknown job is refused before the files are read
  const upload = await receiveParts(req, kind.limits(deps));
  try {
    const meta = readMeta(kind, upload.meta, upload.files.length);
    const items: PreparedFile[] = upload.files.map((file, i) => ({ sha256: file.sha256, file_name: file.fileName, ...meta.items?.[i] }));
    const body = { operation_id: meta.operation_id, via: who.via, ...(meta.room ? { room: meta.room } : {}), [`${kind.part}s`]: items };
    const input = { path: { job_id: who.jobRef }, query: {}, body };
    const replay = await earlierAnswer(deps, kind.tool, who.caller, input);
    if (replay) return replay;
    await storeNewFiles(deps, kind, who.caller.companyId, upload.files, upload.dir);
    return await runTool(deps, kind.tool, who.caller, input);
  } finally {
    await discard(upload);
  }
}

function readMeta(kind: FileKind, text: string | null, fileCount: number): UploadMeta {
  const items = `${kind.part}s`;
  if (text === null) throw invalidRequest([{ path: '/body/meta', message: 'is required: a part named meta holding JSON with operation_id' }]);
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    throw invalidRequest([{ path: '/body/meta', message: 'is not valid JSON' }]);
  }
  const valid = validatorOf(kind.metaSchema);
  if (!valid(meta)) {
    throw invalidRequest((valid.errors ?? []).map((e) => ({ path: `/body/meta${e.instancePath}`, message: e.message ?? 'is invalid' })));
  }
  if (fileCount === 0) throw invalidRequest([{ path: `/body/${kind.part}`, message: `is required: send one part named ${kind.part} per file` }]);
  const { operation_id, room, [items]: given } = meta as { operation_id: string; room?: string } & Record<string, UploadMeta['items']>;
  if (given && given.length !== fileCount) {
    throw invalidRequest([{ path: `/body/meta/${items}`, message: `has ${given.length} entries for ${fileCount} ${kind.part} parts: give one entry per file, in order` }]);
  }
  return { operation_id, room, items: given };
}

function validatorOf(schema: string): ValidateFunction {
  let valid = validators.get(schema);
  if (!valid) validators.set(schema, (valid = ajv.compile({ $ref: `spec#/components/schemas/${schema}` })));
  return valid;
}

/**
 * Examines and stores every file the company does not have yet in a form this kind can use. All
 * of them are examined before any is stored; a failure while storing removes what this request
 * stored.
 */
async function storeNewFiles(deps: Deps, kind: FileKind, companyId: string, files: ReceivedFile[], dir: string): Promise<void> {
  const known = new Set<string>(
    await deps.db('stored_files').where({ company_id: companyId }).whereIn('sha256', files.map((f) => f.sha256)).whereIn('format', kind.formats).pluck('sha256'),
  );
  const fresh = [...new Map(files.filter((f) => !known.has(f.sha256)).map((f) => [f.sha256, f])).values()];
  const examined = await Promise.all(
    fresh.map(async (file) => {
      const outDir = path.join(dir, `out-${file.part}`);
      await mkdir(outDir);
      return kind.examine(deps, file, outDir);
    }),
  );
  const refused = examined.find((result) => result instanceof ApiError);
  if (refused) throw refused;
  const stored: string[] = [];
  try {
    for (const [i, file] of fresh.entries()) await storeOne(deps, kind, companyId, file, examined[i] as Examined, stored);
  } catch (error) {
    await removeUnclaimed(deps, companyId, fresh.map((f) => f.sha256), stored);
    throw error;
  }
}

/** Stores the original and its renditions, noting each key in `stored` before it is written (so that a failure midway is cleaned up too), then the record. */
async function storeOne(deps: Deps, kind: FileKind, companyId: string, file: ReceivedFile, examined: Examined, stored: string[]): Promise<void> {
  for (const { variant, path: localPath, contentType } of [{ variant: 'original' as const, path: file.path, contentType: examined.contentType }, ...examined.files]) {
    const key = storageKey(companyId, file.sha256, variant);
    stored.push(key);
    await deps.media.files.putFile(key, localPath, contentType);
  }
  await deps
    .db('stored_files')
    .insert({
      company_id: companyId,
      sha256: file.sha256,
      kind: kind.part,
      format: examined.format,
      bytes: file.bytes,
      width: examined.width,
      height: examined.height,
      taken: examined.taken ? JSON.stringify(examined.taken) : null,
      renditions: JSON.stringify(examined.renditions),
      facts: examined.facts ? JSON.stringify(examined.facts) : null,
      shareable_sha256: examined.shareableSha256,
    })
    .onConflict(['company_id', 'sha256'])
    .ignore();
}

/** Deletes the objects this request stored whose content no stored-file record claims (another request may have stored the same). */
async function removeUnclaimed(deps: Deps, companyId: string, shas: string[], keys: string[]): Promise<void> {
  const claimed = new Set<string>(await deps.db('stored_files').where({ company_id: companyId }).whereIn('sha256', shas).pluck('sha256'));
  await deps.media.files.delete(keys.filter((key) => !claimed.has(key.split('/')[2])));
}
