/**
 * The video kind of the upload intake (file-intake.ts): MP4, MOV and WebM, checked by content,
 * probed with ffprobe and given a still frame by ffmpeg (child processes, bounded in number and
 * time). The still is the video's viewable picture (`web`).
 */
import path from 'node:path';
import { ApiError } from '../../platform/errors';
import type { VideoFormat } from '../../infrastructure/programs/video-probe';
import { partName, type FileKind } from './file-kind';

const VIDEO_FORMATS = ['mp4', 'mov', 'webm'] as const;
const CONTENT_TYPES: Record<VideoFormat, string> = {
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
};

/** What a video's stored file keeps besides its size and dimensions. */
export interface StoredVideoFacts {
  duration_seconds: number;
  codec: string;
  recorded_at: string | null;
}

export function videoContentType(format: string): string {
  return CONTENT_TYPES[format as VideoFormat] ?? 'application/octet-stream';
}

export const videoKind: FileKind = {
  tool: 'upload_job_videos',
  part: 'video',
  limits: (deps) => ({
    filePart: 'video',
    fileBytes: deps.config.videoMaxBytes,
    files: 10,
    totalBytes: 2 * deps.config.videoMaxBytes,
    metaBytes: 64 * 1024,
  }),
  metaSchema: 'VideoUploadMeta',
  formats: VIDEO_FORMATS,
  async examine(deps, file, outDir) {
    if (!(await deps.media.videos.available())) {
      return new ApiError(
        503,
        'feature_unavailable',
        'Videos cannot be taken on this server: ffmpeg and ffprobe are not installed (Debian package ffmpeg).',
      );
    }
    const stillPath = path.join(outDir, 'still.jpg');
    const result = await deps.media.videos.examine({ sourcePath: file.path, stillPath });
    const part = partName(file, 'video');
    if (!result.ok) {
      if (result.problem === 'unsupported')
        return new ApiError(
          415,
          'unsupported_media_type',
          `${part} is not an MP4, MOV or WebM video: ${result.detail}.`,
        );
      return new ApiError(422, 'invalid_file', `${part} is not a readable video: ${result.detail}.`);
    }
    const facts: StoredVideoFacts = {
      duration_seconds: result.durationSeconds,
      codec: result.codec,
      recorded_at: result.recordedAt,
    };
    return {
      format: result.format,
      contentType: CONTENT_TYPES[result.format],
      width: result.width,
      height: result.height,
      taken: null,
      renditions: { web: result.still },
      facts: { ...facts },
      shareableSha256: null,
      files: [{ variant: 'web', path: stillPath, contentType: 'image/jpeg' }],
    };
  },
};
