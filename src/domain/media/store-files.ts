/**
 * Keeps the files of an upload: each file the company does not have yet is examined by its kind
 * (off the event loop), then its original and renditions are stored with their record.
 */
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { ApiError } from '../../platform/errors';
import type { Deps } from '../services';
import type { Examined, FileKind, ReceivedFile } from './file-kind';
import { storageKey } from './storage-keys';

/**
 * Examines and stores every file the company does not have yet in a form this kind can use. All
 * of them are examined before any is stored. Each file's row comes first, unfinished, then its
 * objects, then the row is marked stored: what a crash leaves is found by the sweeper
 * (./file-sweeper.ts). A failure while storing removes what this request stored.
 */
export async function storeNewFiles(
  deps: Deps,
  kind: FileKind,
  companyId: string,
  files: ReceivedFile[],
  dir: string,
): Promise<void> {
  const known = new Set<string>(
    await deps
      .db('stored_files')
      .where({ company_id: companyId })
      .whereIn(
        'sha256',
        files.map((f) => f.sha256),
      )
      .whereIn('format', kind.formats)
      .whereNotNull('stored_at')
      .pluck('sha256'),
  );
  const fresh = [...new Map(files.filter((f) => !known.has(f.sha256)).map((f) => [f.sha256, f])).values()];
  const examined = await Promise.all(
    fresh.map(async (file) => {
      const outDir = path.join(dir, `out-${file.part}`);
      await mkdir(outDir);
      return kind.examine(deps, file, outDir);
    }),
  );
  const refused = examined.find((result) => result instanceof ApiError);
  if (refused) throw refused;
  const stored: string[] = [];
  try {
    for (const [i, file] of fresh.entries())
      await storeOne(deps, kind, companyId, file, examined[i] as Examined, stored);
  } catch (error) {
    await removeUnclaimed(
      deps,
      companyId,
      fresh.map((f) => f.sha256),
      stored,
    );
    throw error;
  }
}

/** Writes the file's row (unfinished), its original and renditions (each key noted in `stored` first), then marks the row stored. */
async function storeOne(
  deps: Deps,
  kind: FileKind,
  companyId: string,
  file: ReceivedFile,
  examined: Examined,
  stored: string[],
): Promise<void> {
  const facts = {
    kind: kind.part,
    format: examined.format,
    bytes: file.bytes,
    width: examined.width,
    height: examined.height,
    taken: examined.taken ? JSON.stringify(examined.taken) : null,
    renditions: JSON.stringify(examined.renditions),
    facts: examined.facts ? JSON.stringify(examined.facts) : null,
    shareable_sha256: examined.shareableSha256,
  };
  await deps
    .db('stored_files')
    .insert({ company_id: companyId, sha256: file.sha256, ...facts })
    .onConflict(['company_id', 'sha256'])
    .ignore();
  for (const { variant, path: localPath, contentType } of [
    { variant: 'original' as const, path: file.path, contentType: examined.contentType },
    ...examined.files,
  ]) {
    const key = storageKey(companyId, file.sha256, variant);
    stored.push(key);
    await deps.media.files.putFile(key, localPath, contentType);
  }
  await deps
    .db('stored_files')
    .where({ company_id: companyId, sha256: file.sha256 })
    .whereNull('stored_at')
    .update({ ...facts, stored_at: deps.db.fn.now() });
}

/** Deletes what this request stored of files no finished row claims (another request may have stored the same), with their unfinished rows. */
async function removeUnclaimed(deps: Deps, companyId: string, shas: string[], keys: string[]): Promise<void> {
  const unfinished = deps
    .db('stored_files')
    .where({ company_id: companyId })
    .whereIn('sha256', shas)
    .whereNull('stored_at');
  const gone = new Set<string>(
    (await unfinished.clone().delete().returning('sha256')).map((row: { sha256: string }) => row.sha256),
  );
  await deps.media.files.delete(keys.filter((key) => gone.has(key.split('/')[2])));
}
