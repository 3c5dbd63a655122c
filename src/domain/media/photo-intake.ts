/**
 * The photo kind of the upload intake (file-intake.ts): JPEG, PNG and HEIC, decoded in the pool
 * into a web rendition and a thumbnail. Documents that are pictures are examined the same way.
 */
import path from 'node:path';
import { ApiError } from '../../platform/errors';
import type { PreparedImage } from '../../infrastructure/images/decode-pool';
import type { Deps } from '../services';
import { partName, type ReceivedFile, type UploadLimits, type Examined, type FileKind } from './file-kind';

const MiB = 1024 * 1024;
const PHOTO_LIMITS: UploadLimits = {
  filePart: 'photo',
  fileBytes: 30 * MiB,
  files: 50,
  totalBytes: 200 * MiB,
  metaBytes: 64 * 1024,
};
const MAX_PIXELS = 100_000_000;
const PHOTO_FORMATS = ['jpeg', 'png', 'heic'] as const;
const CONTENT_TYPES: Record<PreparedImage['format'], string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  heic: 'image/heic',
};

export const photoKind: FileKind = {
  tool: 'upload_job_photos',
  part: 'photo',
  limits: () => PHOTO_LIMITS,
  metaSchema: 'PhotoUploadMeta',
  formats: PHOTO_FORMATS,
  examine: (deps, file, outDir) => examinePicture(deps, file, outDir, 'photo'),
};

/** Decodes a picture in the pool; `what` names the part in a refusal (photo or document). */
export async function examinePicture(
  deps: Deps,
  file: ReceivedFile,
  outDir: string,
  what: string,
): Promise<Examined | ApiError> {
  const result = await deps.media.images.decode({ sourcePath: file.path, outDir, maxPixels: MAX_PIXELS });
  if (!result.ok) return refusal(partName(file, what), result.problem, result.detail);
  const shareable = await deps.media.locations.shareableCopy(file.path, outDir);
  return {
    format: result.format,
    contentType: CONTENT_TYPES[result.format],
    width: result.width,
    height: result.height,
    taken: result.taken,
    renditions: { web: result.web, thumbnail: result.thumb },
    facts: null,
    shareableSha256: shareable?.sha256 ?? file.sha256,
    files: [
      { variant: 'web', path: path.join(outDir, 'web.jpg'), contentType: 'image/jpeg' },
      { variant: 'thumbnail', path: path.join(outDir, 'thumb.jpg'), contentType: 'image/jpeg' },
      ...(shareable
        ? [{ variant: 'shareable' as const, path: shareable.path, contentType: CONTENT_TYPES[result.format] }]
        : []),
    ],
  };
}

function refusal(
  part: string,
  problem: 'unsupported' | 'corrupt' | 'too_many_pixels',
  detail: string,
): ApiError {
  if (problem === 'unsupported')
    return new ApiError(
      415,
      'unsupported_media_type',
      `${part} is not a JPEG, PNG or HEIC photo: ${detail}.`,
    );
  if (problem === 'too_many_pixels')
    return new ApiError(422, 'image_too_large', `${part} is over 100 megapixels: ${detail}.`);
  return new ApiError(422, 'invalid_file', `${part} is not a readable image: ${detail}.`);
}
