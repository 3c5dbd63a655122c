import type { Knex } from 'knex';

/** When a chamber's water category was reviewed: a claim reviewer asks for it on category 1 water left over 48 hours. */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('drying_chambers', (t) => {
    t.date('category_reviewed_on');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('drying_chambers', (t) => {
    t.dropColumn('category_reviewed_on');
  });
}
