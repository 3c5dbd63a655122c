import type { Knex } from 'knex';

/**
 * Webhook endpoints: each company's subscribers to its change feed. An endpoint keeps its own
 * place in the feed (the (txid, seq) of the last entry delivered): entries after it are what it
 * still has to receive, in order. One-off resends wait in their own table, every attempt is
 * logged. The signing secret is kept as it is: signing needs it (as Stripe and Svix keep theirs).
 * An entry the service makes by itself (an endpoint it disabled) has no person.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhook_endpoints', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('url').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.jsonb('events').notNullable().defaultTo('[]');
    t.text('secret').notNullable();
    t.text('previous_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.text('status').notNullable().defaultTo('active'); // active | paused | disabled
    t.text('disabled_reason');
    t.bigInteger('cursor_txid').notNullable();
    t.bigInteger('cursor_seq').notNullable();
    t.integer('head_attempts').notNullable().defaultTo(0);
    t.timestamp('failing_since', { useTz: true });
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.text('lease_holder');
    t.timestamp('leased_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['company_id']);
  });
  await db.schema.createTable('webhook_resends', (t) => {
    t.bigIncrements('id');
    t.text('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.bigInteger('entry_seq').notNullable();
    t.index(['endpoint_id', 'id']);
  });
  await db.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.text('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.bigInteger('entry_seq').notNullable();
    t.integer('attempt').notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('status_code');
    t.integer('latency_ms').notNullable();
    t.text('error');
    t.boolean('delivered').notNullable();
    t.boolean('replay').notNullable();
    t.index(['endpoint_id', 'id']);
    t.index(['at']);
  });
  await db.schema.alterTable('change_entries', (t) => {
    t.text('person_id').nullable().alter();
  });
}

export async function down(db: Knex): Promise<void> {
  await db('change_entries').whereNull('person_id').delete();
  await db.schema.alterTable('change_entries', (t) => {
    t.text('person_id').notNullable().alter();
  });
  for (const table of ['webhook_attempts', 'webhook_resends', 'webhook_endpoints'])
    await db.schema.dropTable(table);
}
