/**
 * The intake of `upload_job_photos`, over the API and from the upload page: receive the parts
 * (streamed to temporary files), read `meta`, answer a replay before any costly work, check and
 * decode every new photo off the event loop, store originals and renditions, then save the
 * photos through the write pipeline. One refused part refuses the request: nothing is saved and
 * nothing of it stays in storage.
 */
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Request } from 'express';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import spec from '../../generated/openapi.json';
import type { components } from '../../generated/api';
import { ApiError, invalidRequest } from '../../platform/errors';
import type { Caller } from '../../platform/handler';
import { checkScope, earlierAnswer, runTool, type Deps, type ToolAnswer } from '../../platform/pipeline';
import { resolveJob } from '../jobs/job-records';
import { discard, partName, receiveParts, type ReceivedFile, type UploadLimits } from './receive-parts';
import { storageKey } from './photo-records';
import type { PreparedImage } from './decode-pool';
import type { PreparedUpload } from './prepared-upload';

type UploadMeta = components['schemas']['PhotoUploadMeta'];

const MiB = 1024 * 1024;
export const PHOTO_LIMITS: UploadLimits = { filePart: 'photo', fileBytes: 30 * MiB, files: 50, totalBytes: 200 * MiB, metaBytes: 64 * 1024 };
const MAX_PIXELS = 100_000_000;
const CONTENT_TYPES: Record<PreparedImage['format'], string> = { jpeg: 'image/jpeg', png: 'image/png', heic: 'image/heic' };

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema(spec, 'spec');
const validMeta = ajv.compile<UploadMeta>({ $ref: 'spec#/components/schemas/PhotoUploadMeta' });
const validJobRef = ajv.compile<string>({ $ref: 'spec#/components/schemas/JobRef' });

/** Who uploads, to which job, and through what. */
export interface Uploader {
  caller: Caller;
  jobRef: string;
  via: PreparedUpload['via'];
}

export async function intakePhotos(deps: Deps, req: Request, who: Uploader): Promise<ToolAnswer> {
  checkScope('upload_job_photos', who.caller);
  if (!validJobRef(who.jobRef)) throw invalidRequest([{ path: '/path/job_id', message: 'must be a job id (job_…) or a job number (16 or #16)' }]);
  await resolveJob(deps.db, who.caller, who.jobRef); // an unknown job is refused before the files are read
  const upload = await receiveParts(req, PHOTO_LIMITS);
  try {
    const meta = readMeta(upload.meta, upload.files.length);
    const input = {
      path: { job_id: who.jobRef },
      query: {},
      body: {
        operation_id: meta.operation_id,
        via: who.via,
        ...(meta.room ? { room: meta.room } : {}),
        photos: upload.files.map((file, i) => ({ sha256: file.sha256, file_name: file.fileName, ...meta.photos?.[i] })),
      },
    };
    const replay = await earlierAnswer(deps, 'upload_job_photos', who.caller, input);
    if (replay) return replay;
    await storeNewFiles(deps, who.caller.companyId, upload.files, upload.dir);
    return await runTool(deps, 'upload_job_photos', who.caller, input);
  } finally {
    await discard(upload);
  }
}

function readMeta(text: string | null, photoCount: number): UploadMeta {
  if (text === null) throw invalidRequest([{ path: '/body/meta', message: 'is required: a part named meta holding JSON with operation_id' }]);
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    throw invalidRequest([{ path: '/body/meta', message: 'is not valid JSON' }]);
  }
  if (!validMeta(meta)) {
    throw invalidRequest((validMeta.errors ?? []).map((e) => ({ path: `/body/meta${e.instancePath}`, message: e.message ?? 'is invalid' })));
  }
  if (photoCount === 0) throw invalidRequest([{ path: '/body/photo', message: 'is required: send one part named photo per photo' }]);
  if (meta.photos && meta.photos.length !== photoCount) {
    throw invalidRequest([{ path: '/body/meta/photos', message: `has ${meta.photos.length} entries for ${photoCount} photo parts: give one entry per photo, in order` }]);
  }
  return meta;
}

/**
 * Checks, decodes and stores every file the company does not have yet. All of them are checked
 * before any is stored; a failure while storing removes what this request stored.
 */
async function storeNewFiles(deps: Deps, companyId: string, files: ReceivedFile[], dir: string): Promise<void> {
  const known = new Set<string>(
    await deps.db('stored_files').where({ company_id: companyId }).whereIn('sha256', files.map((f) => f.sha256)).pluck('sha256'),
  );
  const fresh = [...new Map(files.filter((f) => !known.has(f.sha256)).map((f) => [f.sha256, f])).values()];
  const prepared = await Promise.all(fresh.map((file) => prepare(deps, file, dir)));
  const refused = prepared.find((result) => result instanceof ApiError);
  if (refused) throw refused;
  const stored: string[] = [];
  try {
    for (const [i, file] of fresh.entries()) stored.push(...(await storeOne(deps, companyId, file, prepared[i])));
  } catch (error) {
    await removeUnclaimed(deps, companyId, fresh.map((f) => f.sha256), stored);
    throw error;
  }
}

async function prepare(deps: Deps, file: ReceivedFile, dir: string): Promise<{ image: PreparedImage; outDir: string } | ApiError> {
  const outDir = path.join(dir, `out-${file.part}`);
  await mkdir(outDir);
  const result = await deps.media.images.decode({ sourcePath: file.path, outDir, maxPixels: MAX_PIXELS });
  return result.ok ? { image: result, outDir } : refusal(file, result.problem, result.detail);
}

function refusal(file: ReceivedFile, problem: 'unsupported' | 'corrupt' | 'too_many_pixels', detail: string): ApiError {
  const part = partName(file);
  if (problem === 'unsupported') return new ApiError(415, 'unsupported_media_type', `${part} is not a JPEG, PNG or HEIC photo: ${detail}.`);
  if (problem === 'too_many_pixels') return new ApiError(422, 'image_too_large', `${part} is over 100 megapixels: ${detail}.`);
  return new ApiError(422, 'invalid_file', `${part} is not a readable image: ${detail}.`);
}

async function storeOne(deps: Deps, companyId: string, file: ReceivedFile, prepared: { image: PreparedImage; outDir: string } | ApiError): Promise<string[]> {
  if (prepared instanceof ApiError) throw prepared;
  const { image, outDir } = prepared;
  const keys = {
    original: storageKey(companyId, file.sha256, 'original'),
    web: storageKey(companyId, file.sha256, 'web'),
    thumbnail: storageKey(companyId, file.sha256, 'thumbnail'),
  };
  await deps.media.files.putFile(keys.original, file.path, CONTENT_TYPES[image.format]);
  await deps.media.files.putFile(keys.web, path.join(outDir, 'web.jpg'), 'image/jpeg');
  await deps.media.files.putFile(keys.thumbnail, path.join(outDir, 'thumb.jpg'), 'image/jpeg');
  await deps
    .db('stored_files')
    .insert({
      company_id: companyId,
      sha256: file.sha256,
      kind: 'photo',
      format: image.format,
      bytes: file.bytes,
      width: image.width,
      height: image.height,
      taken: image.taken ? JSON.stringify(image.taken) : null,
      renditions: JSON.stringify({ web: image.web, thumbnail: image.thumb }),
    })
    .onConflict(['company_id', 'sha256'])
    .ignore();
  return Object.values(keys);
}

/** Deletes the objects this request stored whose content no stored-file record claims (another request may have stored the same). */
async function removeUnclaimed(deps: Deps, companyId: string, shas: string[], keys: string[]): Promise<void> {
  const claimed = new Set<string>(await deps.db('stored_files').where({ company_id: companyId }).whereIn('sha256', shas).pluck('sha256'));
  await deps.media.files.delete(keys.filter((key) => !claimed.has(key.split('/')[2])));
}
