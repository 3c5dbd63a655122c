import type { Knex } from 'knex';

/**
 * A stored file's row is written before its objects, with `stored_at` null until every object is
 * in the store: a node that dies mid-upload leaves a row the sweeper finds (with the objects it
 * names), never objects that no row names. Files stored before this migration are complete.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('stored_files', (t) => {
    t.timestamp('stored_at', { useTz: true });
  });
  await db('stored_files').update({ stored_at: db.ref('created_at') });
  await db.raw('CREATE INDEX stored_files_unfinished ON stored_files (created_at) WHERE stored_at IS NULL');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX stored_files_unfinished');
  await db.schema.alterTable('stored_files', (t) => {
    t.dropColumn('stored_at');
  });
}
