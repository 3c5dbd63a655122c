import type { Knex } from 'knex';

/**
 * An action taken back by undo remembers the operation_id that made it, and the answer stored
 * under that operation_id is marked undone: a client that resends it is told so, instead of
 * getting back the answer of a change that no longer exists.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('undo_actions', (t) => {
    t.text('operation_id');
  });
  await db.schema.alterTable('idempotency_records', (t) => {
    t.timestamp('undone_at', { useTz: true });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('idempotency_records', (t) => {
    t.dropColumn('undone_at');
  });
  await db.schema.alterTable('undo_actions', (t) => {
    t.dropColumn('operation_id');
  });
}
