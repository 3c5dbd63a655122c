/**
 * Files under one directory, a key being a relative path. A put copies to a temporary name next
 * to the target and renames it over, so a reader opens either the old file or the new one.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type Dirent } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import {
  checkKey,
  checkPrefix,
  checkRange,
  RangeNotSatisfiableError,
  type ByteRange,
  type FileStore,
  type OpenedFile,
} from './store';

/** Temporary names hold '~', which no key may, so list never reports them and no key can hit one. */
const TEMP_MARK = '~';

export class DiskFileStore implements FileStore {
  readonly kind = 'disk' as const;

  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    return path.join(this.root, ...checkKey(key).split('/'));
  }

  async putFile(key: string, localPath: string, _contentType: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.${randomBytes(6).toString('hex')}${TEMP_MARK}`;
    try {
      // copyFile streams in the kernel (or clones), never through this process's memory.
      await copyFile(localPath, temp);
      await syncFile(temp);
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async open(
    key: string,
    range?: ByteRange,
    options: { chunkBytes?: number } = {},
  ): Promise<OpenedFile | null> {
    if (range) checkRange(range);
    const handle = await openIfExists(this.pathOf(key));
    if (!handle) return null;
    try {
      // Size from the open handle, so it matches the bytes streamed even if the key is replaced meanwhile.
      const { size } = await handle.stat();
      if (range && range.start >= size) throw new RangeNotSatisfiableError(key, size);
      const bounds = range ? { start: range.start, end: Math.min(range.end, size - 1) } : {};
      return {
        stream: createReadStream('', {
          fd: handle,
          ...(options.chunkBytes ? { highWaterMark: options.chunkBytes } : {}),
          ...bounds,
        }),
        size,
      };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? s.size : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(keys: string[]): Promise<void> {
    const paths = keys.map((k) => this.pathOf(k));
    // Empty directories are left behind: removing them would race a put creating them.
    for (const p of paths) await unlinkIfFile(p);
  }

  /** Temporary files of puts cut short (`~` names), untouched for `maxAgeMs`. */
  async sweepUnfinished(maxAgeMs: number): Promise<void> {
    for (const file of await unfinishedFiles(this.root)) {
      const info = await stat(file).catch(() => null);
      if (info && Date.now() - info.mtimeMs > maxAgeMs) await rm(file, { force: true });
    }
  }

  async list(prefix: string): Promise<string[]> {
    checkPrefix(prefix);
    const cut = prefix.lastIndexOf('/') + 1;
    const dirKey = prefix.slice(0, cut);
    const keys = await walk(path.join(this.root, ...dirKey.split('/').filter(Boolean)), dirKey);
    return keys.filter((k) => k.startsWith(prefix));
  }
}

/** Flushes the copy before it gets the key's name: after a crash the key is the old file or the whole new one. */
async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A directory is no object (as in S3, where a key that is only a prefix holds nothing). */
async function unlinkIfFile(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    if (!isMissing(err) && (err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
  }
}

async function openIfExists(file: string): Promise<FileHandle | null> {
  try {
    const handle = await open(file, 'r');
    if ((await handle.stat()).isFile()) return handle;
    await handle.close();
    return null;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** Paths of the half-written files (marked TEMP_MARK) under `dir`, at any depth. */
async function unfinishedFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await unfinishedFiles(full)));
    else if (entry.name.endsWith(TEMP_MARK)) found.push(full);
  }
  return found;
}

/** Keys of the files under `dir`, which holds the keys starting with `dirKey` (empty or ending in '/'). */
async function walk(dir: string, dirKey: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const keys: string[] = [];
  for (const entry of entries) {
    if (entry.name.includes(TEMP_MARK)) continue;
    const key = dirKey + entry.name;
    if (entry.isDirectory()) keys.push(...(await walk(path.join(dir, entry.name), `${key}/`)));
    else if (entry.isFile()) keys.push(key);
  }
  return keys;
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
