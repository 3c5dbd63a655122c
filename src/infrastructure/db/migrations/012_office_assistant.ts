import type { Knex } from 'knex';

/**
 * For an office assistant: the estimate credits an action used (given back when it is undone),
 * and what each teammate does (so that "who does inspections" has an answer).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('undo_actions', (t) => {
    t.integer('credits_used').notNullable().defaultTo(0);
  });
  await db.schema.alterTable('people', (t) => {
    t.jsonb('responsibilities').notNullable().defaultTo('[]');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('undo_actions', (t) => {
    t.dropColumn('credits_used');
  });
  await db.schema.alterTable('people', (t) => {
    t.dropColumn('responsibilities');
  });
}
