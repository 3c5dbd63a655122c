/**
 * Files in an S3-compatible bucket, a key being the object key. S3 replaces an object atomically
 * on PutObject, so readers see the old object or the new one.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import {
  checkKey,
  checkPrefix,
  checkRange,
  RangeNotSatisfiableError,
  type ByteRange,
  type FileStore,
  type OpenedFile,
  type S3Settings,
} from './store';

/** DeleteObjects takes at most this many keys a request. */
const DELETE_BATCH = 1000;
/** PutObject's limit; larger files would need a multipart upload. */
const MAX_PUT_BYTES = 5 * 1024 ** 3;

export class S3FileStore implements FileStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // By default the SDK (since 3.729) adds a CRC32 to every upload; for a stream body it sends
      // an aws-chunked body with a trailing checksum (x-amz-content-sha256:
      // STREAMING-UNSIGNED-PAYLOAD-TRAILER), which s3rver and some other S3-compatible servers
      // refuse. Checksums only where an operation demands one (DeleteObjects).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    if (settings.forcePathStyle) this.dropBucketSlash();
  }

  /**
   * Path-style bucket requests (list, delete many) go to `/<bucket>/`, signed so; s3rver checks
   * the signature against `/<bucket>` and refuses them. AWS and MinIO take either form, so send
   * the one all accept, before signing.
   */
  private dropBucketSlash(): void {
    const bucketPath = `/${this.bucket}/`;
    this.client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { path?: unknown };
        if (typeof request.path === 'string' && request.path.endsWith(bucketPath))
          request.path = request.path.slice(0, -1);
        return next(args);
      },
      { step: 'build', name: 'dropBucketSlash' },
    );
  }

  async putFile(key: string, localPath: string, contentType: string): Promise<void> {
    checkKey(key);
    const { size } = await stat(localPath);
    if (size > MAX_PUT_BYTES) throw new Error(`file of ${size} bytes is over the single-upload limit`);
    const body = createReadStream(localPath);
    try {
      // ContentLength lets the SDK send the stream as it reads it, without buffering to measure it.
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentLength: size,
          ContentType: contentType,
        }),
      );
    } finally {
      body.destroy(); // the request may fail before reading it all; don't leak the descriptor
    }
  }

  async open(key: string, range?: ByteRange): Promise<OpenedFile | null> {
    checkKey(key);
    if (range) checkRange(range);
    let out: GetObjectCommandOutput;
    try {
      out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
    } catch (err) {
      if (errorNamed(err, 'NoSuchKey')) return null;
      if (errorNamed(err, 'InvalidRange'))
        throw new RangeNotSatisfiableError(key, (await this.size(key)) ?? 0);
      throw err;
    }
    const stream = nodeStream(out.Body);
    try {
      return { stream, size: range ? rangeTotal(out, range) : wholeLength(out) };
    } catch (err) {
      stream.destroy();
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    checkKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.ContentLength ?? 0;
    } catch (err) {
      // A HEAD answer has no body, so a missing key comes back as a bare 404 ('NotFound').
      if (errorNamed(err, 'NotFound') || errorNamed(err, 'NoSuchKey')) return null;
      throw err;
    }
  }

  async delete(keys: string[]): Promise<void> {
    keys.forEach(checkKey);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      await this.deleteBatch(keys.slice(i, i + DELETE_BATCH));
    }
  }

  private async deleteBatch(keys: string[]): Promise<void> {
    const out = await this.client.send(
      new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    // DeleteObjects answers 200 even when some keys failed; those are listed in Errors.
    const failed = out.Errors ?? [];
    if (failed.length > 0) {
      const first = failed[0];
      throw new Error(
        `could not delete ${failed.length} file(s), first ${first?.Key}: ${first?.Code} ${first?.Message}`,
      );
    }
  }

  async list(prefix: string): Promise<string[]> {
    checkPrefix(prefix);
    const keys: string[] = [];
    for await (const page of paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.bucket, Prefix: prefix },
    )) {
      for (const item of page.Contents ?? []) if (item.Key !== undefined) keys.push(item.Key);
    }
    return keys;
  }

  /** Nothing to do: a PutObject stores the whole object or nothing. */
  async sweepUnfinished(): Promise<void> {}
}

function errorNamed(err: unknown, name: string): boolean {
  return err instanceof S3ServiceException && err.name === name;
}

/** In Node the SDK's Body is the HTTP response itself, an IncomingMessage. */
function nodeStream(body: GetObjectCommandOutput['Body']): Readable {
  if (body instanceof Readable) return body;
  throw new Error('S3 object body is not a Node stream');
}

/**
 * The whole object's size from a range answer's Content-Range, checked to be the range asked
 * for: a server that ignores a range or answers another (s3rver answers `bytes=0-0` with the
 * whole object) would otherwise pass wrong bytes off as the range.
 */
function rangeTotal(out: GetObjectCommandOutput, range: ByteRange): number {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(out.ContentRange ?? '');
  const [start, end, total] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [NaN, NaN, NaN];
  if (start !== range.start || end !== Math.min(range.end, total - 1)) {
    throw new Error(
      `storage answered ${out.ContentRange ?? 'no Content-Range'} for bytes ${range.start}-${range.end}`,
    );
  }
  return total;
}

function wholeLength(out: GetObjectCommandOutput): number {
  if (out.ContentLength === undefined) throw new Error('S3 answer without a size');
  return out.ContentLength;
}
