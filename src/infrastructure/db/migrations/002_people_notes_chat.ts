import type { Knex } from 'knex';

/**
 * People found by name, phone digits or email; note history; the record an entry of the change
 * feed is about (a note, a contact); and the chat outbox, written in the same transaction as the
 * note it announces.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('contacts', (t) => {
    t.text('phone_digits').notNullable().defaultTo('');
    t.text('address_line1');
    t.text('city');
    t.text('region');
    t.text('postal_code');
  });
  await db.raw(`CREATE INDEX contacts_name_trgm ON contacts USING gin (lower(name) gin_trgm_ops)`);
  await db.raw(`CREATE INDEX contacts_email_trgm ON contacts USING gin (lower(email) gin_trgm_ops)`);
  await db.raw(`CREATE INDEX contacts_phone_trgm ON contacts USING gin (phone_digits gin_trgm_ops)`);

  await db.schema.createTable('note_versions', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('note_id').notNullable().references('notes.id');
    t.text('text').notNullable();
    t.text('replaced_by').notNullable().references('people.id');
    t.timestamp('replaced_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.index(['note_id']);
  });

  await db.schema.alterTable('change_entries', (t) => {
    t.text('record_id');
    t.index(['company_id', 'job_id', 'seq']);
  });

  await db.schema.createTable('chat_outbox', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('webhook_url').notNullable();
    t.jsonb('payload').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('failed_at', { useTz: true });
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(
    'CREATE INDEX chat_outbox_due ON chat_outbox (next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL',
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('chat_outbox');
  await db.schema.alterTable('change_entries', (t) => {
    t.dropIndex(['company_id', 'job_id', 'seq']);
    t.dropColumn('record_id');
  });
  await db.schema.dropTable('note_versions');
  await db.raw('DROP INDEX contacts_name_trgm, contacts_email_trgm, contacts_phone_trgm');
  await db.schema.alterTable('contacts', (t) => {
    for (const column of ['phone_digits', 'address_line1', 'city', 'region', 'postal_code'])
      t.dropColumn(column);
  });
}
