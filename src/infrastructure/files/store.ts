/**
 * The service's file store: originals and renditions of uploaded files, kept on local disk or
 * in S3-compatible storage behind one interface. Files stream in and out; none is ever held
 * in memory whole.
 */
import type { Readable } from 'node:stream';

/** Inclusive at both ends, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface OpenedFile {
  /** Holds a file descriptor or a connection until read to the end or destroyed. */
  stream: Readable;
  /** The whole object's size, also when a range was opened. */
  size: number;
}

export interface FileStore {
  readonly kind: 'disk' | 's3';
  /** Stores the local file at `localPath` under `key`, streamed; replaces an object of that key. Atomic: a reader never sees half a file. */
  putFile(key: string, localPath: string, contentType: string): Promise<void>;
  /**
   * Opens an object, whole or a byte range; null when there is no such key. A range's end past
   * the object's last byte is cut to it; a start past it throws RangeNotSatisfiableError.
   * `chunkBytes` asks a local file for larger reads than the default 64 KiB (a stream that
   * passes through several steps, such as a ZIP's entries, goes faster); S3 streams as the
   * network delivers.
   */
  open(key: string, range?: ByteRange, options?: { chunkBytes?: number }): Promise<OpenedFile | null>;
  /** Size in bytes, or null when absent. */
  size(key: string): Promise<number | null>;
  /** Deletes objects; absent keys are not an error. */
  delete(keys: string[]): Promise<void>;
  /** Every key under a prefix (for cleanup and tests), as a plain string prefix, in no set order. */
  list(prefix: string): Promise<string[]>;
  /** Removes what writes cut short left behind (a node killed mid-write), once older than `maxAgeMs`. */
  sweepUnfinished(maxAgeMs: number): Promise<void>;
}

export interface S3Settings {
  bucket: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** When absent the SDK's usual chain (environment, profile, instance role) is used. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface FileStoreSettings {
  filesDir: string;
  s3: S3Settings | null;
}

/** A range that starts past the object's last byte (HTTP 416; `size` is for `Content-Range: bytes *\/size`). */
export class RangeNotSatisfiableError extends Error {
  constructor(
    readonly key: string,
    readonly size: number,
  ) {
    super(`range not satisfiable for ${key} (size ${size})`);
    this.name = 'RangeNotSatisfiableError';
  }
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/;

function validSegments(text: string): boolean {
  return text.split('/').every((s) => SEGMENT.test(s) && s !== '.' && s !== '..');
}

/** Keys become file paths on disk: only plain segments, so none can climb out of the store's directory. */
export function checkKey(key: string): string {
  if (key.length > 1024 || !validSegments(key)) throw new Error(`invalid file key: ${JSON.stringify(key)}`);
  return key;
}

/**
 * A list prefix is a string prefix (as in S3): whole segments, then possibly part of one. Only
 * its whole segments name a directory, so those are held to the rules for keys.
 */
export function checkPrefix(prefix: string): string {
  const cut = prefix.lastIndexOf('/');
  const dir = prefix.slice(0, Math.max(cut, 0));
  const tail = prefix.slice(cut + 1);
  const ok =
    (dir === '' ? cut === -1 : validSegments(dir)) &&
    /^[A-Za-z0-9_.-]*$/.test(tail) &&
    tail !== '.' &&
    tail !== '..' &&
    prefix.length <= 1024;
  if (!ok) throw new Error(`invalid file key prefix: ${JSON.stringify(prefix)}`);
  return prefix;
}

/** Ranges come from parsed headers; a wrong one is a caller's bug, not a 416. */
export function checkRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new Error(`invalid byte range ${start}-${end}`);
  }
}
