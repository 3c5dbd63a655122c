/**
 * Sends a stored file over HTTP, streamed from the store, honouring a single `Range` (so that a
 * browser's `<video>` can seek and a download can resume) and, with an `ETag`, `If-Range`.
 */
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { ByteRange, FileStore } from '../../infrastructure/files/store';
import { ApiError, notFound } from '../../platform/errors';

export interface SendOptions {
  /**
   * Runs once every byte of the response is with the operating system, before the response
   * ends, with the bytes sent (not for HEAD). If it throws, or the client goes away first, the
   * connection is cut instead of ending the response: the client can tell it did not complete.
   */
  beforeEnd?: (sent: ByteRange) => Promise<void>;
}

export async function sendStoredFile(
  req: Request,
  res: Response,
  files: FileStore,
  key: string,
  headers: Record<string, string>,
  options: SendOptions = {},
): Promise<void> {
  const size = await files.size(key);
  if (size === null) throw notFound('file');
  const range = rangeStillValid(req, headers.ETag) ? requestedRange(req.headers.range, size) : null;
  // HEAD asks for the headers only: the object is not read (on S3 that would be a download).
  const opened = req.method === 'HEAD' ? null : await files.open(key, range ?? undefined);
  if (req.method !== 'HEAD' && !opened) throw notFound('file');
  res.set({
    ...headers,
    'Accept-Ranges': 'bytes',
    'Content-Length': String(range ? range.end - range.start + 1 : size),
  });
  if (range) res.status(206).set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  if (!opened) return void res.end();
  if (!options.beforeEnd) return pipeline(opened.stream, res);
  try {
    await pipeline(opened.stream, res, { end: false });
    await allHandedOver(res);
    await options.beforeEnd(range ?? { start: 0, end: size - 1 });
    res.end();
  } catch (error) {
    // Part of the file is out: cutting the connection is the only way left to say it failed.
    req.log.warn({ err: error }, 'file not sent whole');
    res.destroy();
  }
}

/** A range applies unless `If-Range` names another version of the file than `etag`. */
function rangeStillValid(req: Request, etag: string | undefined): boolean {
  const ifRange = req.headers['if-range'];
  return ifRange === undefined || (etag !== undefined && ifRange === etag);
}

/** One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; several ranges are answered whole; one outside the file is a 416. */
function requestedRange(header: string | undefined, size: number): ByteRange | null {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [start, end] =
    match[1] === ''
      ? [Math.max(0, size - Number(match[2])), size - 1]
      : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
  if (start > end || start >= size) {
    throw new ApiError(416, 'invalid_request', `The range ${header} is outside the file's ${size} bytes.`, {
      headers: { 'Content-Range': `bytes */${size}` },
    });
  }
  return { start, end };
}

/** Resolves once every byte written to the response is with the operating system; rejects if the client went away. */
async function allHandedOver(res: Response): Promise<void> {
  while (res.writableLength > 0 && !res.destroyed) await delay(5);
  if (res.destroyed) throw new Error('the client went away before the whole file was sent');
}
