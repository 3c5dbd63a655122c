import type { Knex } from 'knex';

/**
 * Change entries carry their details for programs (`ChangeData` in the spec) beside the human
 * summary. Entries written before this migration have none and answer `data: null`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('change_entries', (t) => {
    t.jsonb('data');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('change_entries', (t) => {
    t.dropColumn('data');
  });
}
