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
 * of them are examined before any is stored; a failure while storing removes what this request
 * stored.
 */
export async function storeNewFiles(deps: Deps, kind: FileKind, companyId: string, files: ReceivedFile[], dir: string): Promise<void> {
  const known = new Set<string>(
    await deps.db('stored_files').where({ company_id: companyId }).whereIn('sha256', files.map((f) => f.sha256)).whereIn('format', kind.formats).pluck('sha256'),
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
    for (const [i, file] of fresh.entries()) await storeOne(deps, kind, companyId, file, examined[i] as Examined, stored);
  } catch (error) {
    await removeUnclaimed(deps, companyId, fresh.map((f) => f.sha256), stored);
    throw error;
  }
}

/** Stores the original and its renditions, noting each key in `stored` before it is written (so that a failure midway is cleaned up too), then the record. */
async function storeOne(deps: Deps, kind: FileKind, companyId: string, file: ReceivedFile, examined: Examined, stored: string[]): Promise<void> {
  for (const { variant, path: localPath, contentType } of [{ variant: 'original' as const, path: file.path, contentType: examined.contentType }, ...examined.files]) {
    const key = storageKey(companyId, file.sha256, variant);
    stored.push(key);
    await deps.media.files.putFile(key, localPath, contentType);
  }
  await deps
    .db('stored_files')
    .insert({
      company_id: companyId,
      sha256: file.sha256,
      kind: kind.part,
      format: examined.format,
      bytes: file.bytes,
      width: examined.width,
      height: examined.height,
      taken: examined.taken ? JSON.stringify(examined.taken) : null,
      renditions: JSON.stringify(examined.renditions),
      facts: examined.facts ? JSON.stringify(examined.facts) : null,
      shareable_sha256: examined.shareableSha256,
    })
    .onConflict(['company_id', 'sha256'])
    .ignore();
}

/** Deletes the objects this request stored whose content no stored-file record claims (another request may have stored the same). */
async function removeUnclaimed(deps: Deps, companyId: string, shas: string[], keys: string[]): Promise<void> {
  const claimed = new Set<string>(await deps.db('stored_files').where({ company_id: companyId }).whereIn('sha256', shas).pluck('sha256'));
  await deps.media.files.delete(keys.filter((key) => !claimed.has(key.split('/')[2])));
}
