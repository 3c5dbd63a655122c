/**
 * Deletes stored files that no photo, video or document uses any more (an upload taken back by
 * undo, or one whose write failed after its files were stored), once nobody has used them for
 * `retentionDays`: as long as an operation_id's answer is kept, a replay may still show the
 * records it named. A document's kept page texts go with its file.
 */
import type { Knex } from 'knex';
import type { FileStore } from '../../infrastructure/files/store';
import { storageKey, type FileVariant } from './storage-keys';

const BATCH = 200;
const VARIANTS: FileVariant[] = ['original', 'web', 'thumbnail', 'shareable'];
const USERS = ['photos', 'videos', 'documents'];

export async function sweepUnusedFiles(db: Knex, files: FileStore, retentionDays: number): Promise<number> {
  let swept = 0;
  for (;;) {
    // The record goes first: once it is gone no record can point at the file (foreign keys), so
    // its objects can go too.
    const unused = (await unusedFiles(db('stored_files as f').whereIn(['f.company_id', 'f.sha256'], unusedFiles(db('stored_files as u'), 'u', retentionDays).limit(BATCH).select('u.company_id', 'u.sha256')), 'f', retentionDays)
      .delete()
      .returning(['company_id', 'sha256'])) as { company_id: string; sha256: string }[];
    await files.delete(unused.flatMap((f) => VARIANTS.map((variant) => storageKey(f.company_id, f.sha256, variant))));
    swept += unused.length;
    if (unused.length < BATCH) return swept;
  }
}

/** Narrows a query of stored files (`alias`) to those unused for the retention time and used by no record. */
function unusedFiles(query: Knex.QueryBuilder, alias: string, retentionDays: number): Knex.QueryBuilder {
  query.whereRaw(`${alias}.last_used_at < now() - make_interval(days => ?)`, [retentionDays]);
  for (const table of USERS) query.whereNotExists((sub) => sub.from(table).whereRaw(`${table}.company_id = ${alias}.company_id and ${table}.sha256 = ${alias}.sha256`));
  return query;
}
