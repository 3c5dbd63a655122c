/**
 * Deletes stored files that no photo uses any more (an upload taken back by undo, or one whose
 * write failed after its files were stored), once nobody has used them for `retentionDays`: as
 * long as an operation_id's answer is kept, a replay may still show the photos it named.
 */
import type { Knex } from 'knex';
import type { FileStore } from '../../files/store';
import { storageKey } from './photo-records';

const BATCH = 200;

export async function sweepUnusedFiles(db: Knex, files: FileStore, retentionDays: number): Promise<number> {
  let swept = 0;
  for (;;) {
    // The record goes first: once it is gone no photo can point at the file (foreign key), so
    // its objects can go too.
    const unused = (await db('stored_files as f')
      .whereIn(['f.company_id', 'f.sha256'], unusedFiles(db, retentionDays))
      .whereNotExists(db('photos as ph').whereRaw('ph.company_id = f.company_id and ph.sha256 = f.sha256'))
      .whereRaw('f.last_used_at < now() - make_interval(days => ?)', [retentionDays])
      .delete()
      .returning(['company_id', 'sha256'])) as { company_id: string; sha256: string }[];
    await files.delete(unused.flatMap((f) => (['original', 'web', 'thumbnail'] as const).map((variant) => storageKey(f.company_id, f.sha256, variant))));
    swept += unused.length;
    if (unused.length < BATCH) return swept;
  }
}

function unusedFiles(db: Knex, retentionDays: number): Knex.QueryBuilder {
  return db('stored_files as u')
    .whereRaw('u.last_used_at < now() - make_interval(days => ?)', [retentionDays])
    .whereNotExists(db('photos as p').whereRaw('p.company_id = u.company_id and p.sha256 = u.sha256'))
    .limit(BATCH)
    .select('u.company_id', 'u.sha256');
}
