/**
 * What makes an upload of photos, videos or documents what it is (a `FileKind`), and what the
 * intake hands each kind: a file received to a temporary path with its SHA-256, within limits.
 */
import type { ApiError } from '../../platform/errors';
import type { Deps } from '../services';
import type { UploadTool } from './prepared-upload';
import type { FileVariant } from './storage-keys';

export interface UploadLimits {
  /** The name of the file parts. */
  filePart: string;
  fileBytes: number;
  files: number;
  totalBytes: number;
  metaBytes: number;
}

export interface ReceivedFile {
  /** 1-based, among the file parts. */
  part: number;
  fileName: string | null;
  path: string;
  bytes: number;
  sha256: string;
  /** The first bytes, for telling what the content is. */
  head: Buffer;
}

export function partName(file: Pick<ReceivedFile, 'part' | 'fileName'>, what: string): string {
  return `${what} part ${file.part}${file.fileName ? ` (${file.fileName})` : ''}`;
}

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
