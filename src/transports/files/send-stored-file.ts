/**
 * Sends a stored file over HTTP, streamed from the store, honouring a single `Range` (so that a
 * browser's `<video>` can seek and a download can resume).
 */
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { ByteRange, FileStore } from '../../infrastructure/files/store';
import { ApiError, notFound } from '../../platform/errors';

export async function sendStoredFile(req: Request, res: Response, files: FileStore, key: string, headers: Record<string, string>): Promise<void> {
  const size = await files.size(key);
  if (size === null) throw notFound('file');
  const range = requestedRange(req.headers.range, size);
  // HEAD asks for the headers only: the object is not read (on S3 that would be a download).
  const opened = req.method === 'HEAD' ? null : await files.open(key, range ?? undefined);
  if (req.method !== 'HEAD' && !opened) throw notFound('file');
  res.set({ ...headers, 'Accept-Ranges': 'bytes', 'Content-Length': String(range ? range.end - range.start + 1 : size) });
  if (range) res.status(206).set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  if (!opened) return void res.end();
  await pipeline(opened.stream, res);
}

/** One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; several ranges are answered whole; one outside the file is a 416. */
function requestedRange(header: string | undefined, size: number): ByteRange | null {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [start, end] =
    match[1] === '' ? [Math.max(0, size - Number(match[2])), size - 1] : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
  if (start > end || start >= size) {
    throw new ApiError(416, 'invalid_request', `The range ${header} is outside the file's ${size} bytes.`, { headers: { 'Content-Range': `bytes */${size}` } });
  }
  return { start, end };
}
