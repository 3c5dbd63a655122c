/**
 * The service's temporary files live in one directory of their own, one per process under a
 * shared base (two nodes on one machine each have theirs): uploads being received, local copies
 * of stored files for OCR, rendered pages, packets being built. The process points TMPDIR at it,
 * so that every mkdtemp(tmpdir()) of ours, of libraries and of the programs we run lands there.
 * At start the directories of processes that no longer run (a node killed mid-upload) are
 * removed; the sweeper removes what nobody has touched for a while.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

let made: string | null = null;

/** Makes this process's temporary directory under `base` (once), removing those of processes gone. */
export function useTempDir(base: string): string {
  if (made) return made;
  mkdirSync(base, { recursive: true });
  for (const entry of readdirSync(base)) {
    const pid = /^p(\d+)$/.exec(entry)?.[1];
    if (pid && (Number(pid) === process.pid || !isRunning(Number(pid))))
      rmSync(path.join(base, entry), { recursive: true, force: true });
  }
  const dir = path.join(base, `p${process.pid}`);
  mkdirSync(dir, { recursive: true });
  process.env.TMPDIR = dir;
  made = dir;
  return dir;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the entries of `dir` untouched for `maxAgeMs` (what a crashed request or job left). */
export async function sweepTempDir(dir: string, maxAgeMs: number): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    const full = path.join(dir, entry);
    const info = await stat(full).catch(() => null);
    if (info && Date.now() - newestTime(full, info.mtimeMs) > maxAgeMs) {
      await rm(full, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

/** The newest modification time in a directory (a file still being written keeps its directory young). */
function newestTime(full: string, own: number): number {
  try {
    return Math.max(own, ...readdirSync(full).map((name) => statSync(path.join(full, name)).mtimeMs));
  } catch {
    return own;
  }
}
