/**
 * Reads a multipart upload as it streams in: each file part goes straight to a temporary file
 * while its SHA-256 is computed and its first bytes are kept for sniffing, so that no file is
 * ever held whole in memory. Limits are enforced while reading; a refused request is read to
 * its end (so that the client gets the answer instead of a reset) and nothing of it is kept.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError, invalidRequest } from '../../platform/errors';
import { partName, type ReceivedFile, type UploadLimits } from '../../domain/media/file-kind';

export interface ReceivedUpload {
  meta: string | null;
  files: ReceivedFile[];
  /** A temporary directory holding the files; the caller removes it with `discard`. */
  dir: string;
}

const HEAD_BYTES = 64;
const MiB = 1024 * 1024;

export async function discard(upload: Pick<ReceivedUpload, 'dir'>): Promise<void> {
  await rm(upload.dir, { recursive: true, force: true });
}

/** Milliseconds to hold `bytes` of a file back before reading on (the company's pace). */
export type Pace = (bytes: number) => number;

/** How long a body may send nothing; a signal aborted when the node stops. */
export interface ReceiveCutoffs {
  idleMs: number;
  stopping?: AbortSignal;
}

/** Seconds a client cut off by a stopping node is told to wait: another node takes it by then. */
const RETRY_AFTER_STOP_SECONDS = 5;

/**
 * Reads the upload at the pace given; a body that sends nothing for `idleMs` is cut off with 408,
 * an upload under way (or still waiting for its turn) when the node stops with 503 and
 * Retry-After, and its files released at once.
 */
export async function receiveParts(
  req: Request,
  limits: UploadLimits,
  cutoffs: ReceiveCutoffs,
  pace: Pace,
): Promise<ReceivedUpload> {
  if (!req.is('multipart/form-data')) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Send the upload as multipart/form-data: a part named meta (JSON) and one part named ${limits.filePart} per file.`,
    );
  }
  if (cutoffs.stopping?.aborted) throw shuttingDown();
  const declared = Number(req.headers['content-length']);
  const dir = await mkdtemp(path.join(tmpdir(), 'jms-upload-'));
  try {
    if (declared > limits.totalBytes + limits.metaBytes + 64 * 1024)
      throw tooLarge(
        `The request is ${mib(declared)}; at most ${mib(limits.totalBytes)} of files can be sent at once.`,
      );
    return { ...(await readParts(req, limits, dir, cutoffs, pace)), dir };
  } catch (error) {
    await discard({ dir });
    throw error;
  }
}

function shuttingDown(): ApiError {
  return new ApiError(
    503,
    'shutting_down',
    `The service is stopping and cut the upload off; send it again in ${RETRY_AFTER_STOP_SECONDS} s (the same operation_id is safe to retry).`,
    { headers: { 'Retry-After': String(RETRY_AFTER_STOP_SECONDS), Connection: 'close' } },
  );
}

function readParts(
  req: Request,
  limits: UploadLimits,
  dir: string,
  cutoffs: ReceiveCutoffs,
  pace: Pace,
): Promise<Omit<ReceivedUpload, 'dir'>> {
  const { idleMs, stopping } = cutoffs;
  return new Promise((resolveParts, rejectParts) => {
    // Settled either way, the upload no longer listens for the node's stop.
    const resolve = (parts: Omit<ReceivedUpload, 'dir'>) => {
      stopping?.removeEventListener('abort', stop);
      resolveParts(parts);
    };
    const reject = (error: unknown) => {
      stopping?.removeEventListener('abort', stop);
      rejectParts(error);
    };
    const files: ReceivedFile[] = [];
    const writes: Promise<void>[] = [];
    const sinks: WriteStream[] = [];
    let meta: string | null = null;
    let total = 0;
    let refused: ApiError | null = null;
    // busboy counts a part against `parts` once it has ended and refuses when the count reaches
    // the limit: `files` files and one meta part must pass, so the limit is one past them. More
    // files are refused as they start (`files`), a second meta by the field handler.
    const parser = busboy({
      headers: req.headers,
      limits: {
        fileSize: limits.fileBytes,
        files: limits.files,
        fields: 2,
        fieldSize: limits.metaBytes,
        parts: limits.files + 2,
      },
    });

    // The files being written are closed (their parts never end), and only then is the request
    // answered, so that the temporary directory is removed with no file of it still open.
    let closing: Promise<unknown> | null = null;
    const closeFiles = () => {
      if (!closing) {
        for (const sink of sinks) sink.destroy();
        closing = Promise.allSettled(writes);
      }
      return closing;
    };
    // After a refusal the rest of the body is read and thrown away, then the refusal is answered.
    const refuse = (error: ApiError) => {
      if (refused) return;
      refused = error;
      req.unpipe(parser);
      void closeFiles().then(() => {
        if (req.readableEnded) reject(error);
        else req.resume();
      });
    };
    // A client that goes away, or stops sending, or a node that stops, leaves nothing open behind it.
    const abandon = (error: Error) => {
      clearTimeout(idle);
      req.unpipe(parser);
      void closeFiles().then(() => reject(error));
    };
    const stalled = () =>
      abandon(
        new ApiError(
          408,
          'request_timeout',
          `The upload sent nothing for ${idleMs / 1000} s and was cut off; send it again (the same operation_id is safe to retry).`,
          { headers: { Connection: 'close' } },
        ),
      );
    const idle = setTimeout(stalled, idleMs);
    const stop = () => abandon(shuttingDown());
    stopping?.addEventListener('abort', stop, { once: true });
    req.on('data', () => idle.refresh());
    req.on('end', () => {
      clearTimeout(idle);
      if (refused) void closeFiles().then(() => reject(refused));
    });
    req.on('error', abandon);
    req.on(
      'close',
      () => !req.complete && abandon(new Error('the client closed the connection before the upload ended')),
    );

    parser.on('file', (name, stream, info) => {
      if (refused || name !== limits.filePart) {
        refuse(notAPart(name, limits.filePart));
        stream.resume();
        return;
      }
      const file: ReceivedFile = {
        part: files.length + 1,
        fileName: cleanFileName(info.filename),
        path: path.join(dir, `part-${files.length + 1}`),
        bytes: 0,
        sha256: '',
        head: Buffer.alloc(0),
      };
      files.push(file);
      const hash = createHash('sha256');
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          file.bytes += chunk.length;
          total += chunk.length;
          if (file.head.length < HEAD_BYTES)
            file.head = Buffer.concat([file.head, chunk.subarray(0, HEAD_BYTES - file.head.length)]);
          hash.update(chunk);
          if (total > limits.totalBytes)
            refuse(
              tooLarge(
                `The files add up to more than ${mib(limits.totalBytes)}; send them in several requests.`,
              ),
            );
          // Held back, the chunk holds the parser and then the connection: the client waits.
          const wait = pace(chunk.length);
          if (wait > 0) setTimeout(() => done(null, chunk), wait);
          else done(null, chunk);
        },
      });
      stream.on('limit', () =>
        refuse(tooLarge(`${partName(file, limits.filePart)} is over ${mib(limits.fileBytes)}.`)),
      );
      const sink = createWriteStream(file.path);
      sinks.push(sink);
      const written = pipeline(stream, count, sink).then(() => {
        file.sha256 = hash.digest('hex');
      });
      // A refusal closes this part's file: that failure is not news.
      written.catch(() => undefined);
      writes.push(written);
    });
    parser.on('field', (name, value, info) => {
      // busboy reads a part without `filename=` (and not application/octet-stream) as a text field.
      if (name === limits.filePart) {
        return refuse(
          invalidRequest([
            {
              path: `/body/${name}`,
              message: `was sent without a filename: send each file as Content-Disposition: form-data; name="${name}"; filename="…"`,
            },
          ]),
        );
      }
      if (name !== 'meta') return refuse(notAPart(name, limits.filePart));
      if (meta !== null)
        return refuse(invalidRequest([{ path: '/body/meta', message: 'must be sent once' }]));
      if (info.valueTruncated)
        return refuse(tooLarge(`The meta part is over ${limits.metaBytes / 1024} KiB.`));
      meta = value;
    });
    parser.on('filesLimit', () =>
      refuse(tooLarge(`At most ${limits.files} files can be sent in one request.`)),
    );
    parser.on('partsLimit', () =>
      refuse(tooLarge(`At most ${limits.files} files and one meta part can be sent in one request.`)),
    );
    parser.on('error', (error: Error) =>
      refuse(
        invalidRequest([
          { path: '/body', message: `is not readable multipart/form-data (${error.message})` },
        ]),
      ),
    );
    parser.on('close', () => {
      Promise.all(writes).then(
        () => (refused ? undefined : resolve({ meta, files })),
        (error: unknown) =>
          refuse(
            error instanceof ApiError
              ? error
              : invalidRequest([{ path: '/body', message: `could not be read (${String(error)})` }]),
          ),
      );
    });
    req.pipe(parser);
  });
}

function tooLarge(detail: string): ApiError {
  return new ApiError(413, 'payload_too_large', detail);
}

function mib(bytes: number): string {
  return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
}

function notAPart(name: string | undefined, filePart: string): ApiError {
  const expected = `send one part named meta and one named ${filePart} per file`;
  if (!name) return invalidRequest([{ path: '/body', message: `has a part without a name: ${expected}` }]);
  return invalidRequest([
    {
      path: `/body/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      message: `is not a part of this upload: ${expected}`,
    },
  ]);
}

/** The file name as sent, without any folder part and without control characters. */
function cleanFileName(name: string | undefined): string | null {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return base ? base.slice(0, 200) : null;
}
