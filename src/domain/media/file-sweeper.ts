/**
 * Deletes stored files that no photo, video or document uses any more (an upload taken back by
 * undo, or one whose write failed after its files were stored), once nobody has used them for
 * `retentionDays`: as long as an operation_id's answer is kept, a replay may still show the
 * records it named. A document's kept page texts go with its file.
 */
import type { Knex } from 'knex';
import type { FileStore } from '../../infrastructure/files/store';
import { PACKETS_PREFIX, storageKey, type FileVariant } from './storage-keys';

const BATCH = 200;
const VARIANTS: FileVariant[] = ['original', 'web', 'thumbnail', 'shareable'];
const USERS = ['photos', 'videos', 'documents'];

export async function sweepUnusedFiles(db: Knex, files: FileStore, retentionDays: number): Promise<number> {
  let swept = 0;
  for (;;) {
    // The record goes first: once it is gone no record can point at the file (foreign keys), so
    // its objects can go too.
    const unused = (await unusedFiles(
      db('stored_files as f').whereIn(
        ['f.company_id', 'f.sha256'],
        unusedFiles(db('stored_files as u'), 'u', retentionDays)
          .limit(BATCH)
          .select('u.company_id', 'u.sha256'),
      ),
      'f',
      retentionDays,
    )
      .delete()
      .returning(['company_id', 'sha256'])) as { company_id: string; sha256: string }[];
    await files.delete(
      unused.flatMap((f) => VARIANTS.map((variant) => storageKey(f.company_id, f.sha256, variant))),
    );
    swept += unused.length;
    if (unused.length < BATCH) return swept;
  }
}

/** Narrows a query of stored files (`alias`) to those unused for the retention time and used by no record. */
function unusedFiles(query: Knex.QueryBuilder, alias: string, retentionDays: number): Knex.QueryBuilder {
  query.whereRaw(`${alias}.last_used_at < now() - make_interval(days => ?)`, [retentionDays]);
  for (const table of USERS)
    query.whereNotExists((sub) =>
      sub
        .from(table)
        .whereRaw(`${table}.company_id = ${alias}.company_id and ${table}.sha256 = ${alias}.sha256`),
    );
  return query;
}

/**
 * Files whose upload never finished (their node died while writing them, or a request failed
 * without cleaning up): the unfinished rows older than `olderThanMinutes`, and their objects.
 */
export async function sweepUnfinishedFiles(
  db: Knex,
  files: FileStore,
  olderThanMinutes: number,
): Promise<number> {
  const gone = (await db('stored_files')
    .whereNull('stored_at')
    .whereRaw('created_at < now() - make_interval(mins => ?)', [olderThanMinutes])
    .delete()
    .returning(['company_id', 'sha256'])) as { company_id: string; sha256: string }[];
  await files.delete(
    gone.flatMap((f) => VARIANTS.map((variant) => storageKey(f.company_id, f.sha256, variant))),
  );
  return gone.length;
}

/** Objects in the store that no row names (left by a crash before rows were written first), and the store's own unfinished writes. */
export async function sweepObjectsWithoutRows(
  db: Knex,
  files: FileStore,
  unfinishedMaxAgeMs: number,
): Promise<number> {
  await files.sweepUnfinished(unfinishedMaxAgeMs);
  const byFile = new Map<string, string[]>();
  for (const key of await files.list('')) {
    // Packets are swept with their builds (../exports/packet-builds.ts).
    if (key.startsWith(PACKETS_PREFIX)) continue;
    const [companyId, , sha256] = key.split('/');
    const file = `${companyId}/${sha256}`;
    byFile.set(file, [...(byFile.get(file) ?? []), key]);
  }
  const orphans: string[] = [];
  const names = [...byFile.keys()];
  for (let i = 0; i < names.length; i += BATCH) {
    const batch = names.slice(i, i + BATCH).map((name) => name.split('/') as [string, string]);
    const known = new Set(
      (await db('stored_files').whereIn(['company_id', 'sha256'], batch).select('company_id', 'sha256')).map(
        (row: { company_id: string; sha256: string }) => `${row.company_id}/${row.sha256}`,
      ),
    );
    for (const [companyId, sha256] of batch)
      if (!known.has(`${companyId}/${sha256}`)) orphans.push(...byFile.get(`${companyId}/${sha256}`)!);
  }
  await files.delete(orphans);
  return orphans.length;
}
