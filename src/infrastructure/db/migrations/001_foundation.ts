import type { Knex } from 'knex';

/**
 * Companies, people, keys, the company lists, jobs with their people, and the three records of
 * the write pipeline (idempotency, change feed, undo). Every mutable record of a company carries
 * `company_id` and a `version` that undo uses to see whether anyone changed it since.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');

  await db.schema.createTable('companies', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('timezone').notNullable();
    t.text('pricing_region');
    t.integer('credits').notNullable().defaultTo(0);
    t.text('chat_webhook_url');
    t.boolean('chat_new_note').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable('people', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.text('email');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['company_id']);
  });

  await db.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('person_id').notNullable().references('people.id');
    t.text('scope').notNullable();
    t.text('prefix').notNullable();
    t.text('secret_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['company_id']);
  });

  await db.schema.createTable('statuses', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('name').notNullable();
    t.integer('position').notNullable();
  });
  await db.raw('CREATE UNIQUE INDEX statuses_company_name ON statuses (company_id, lower(name))');

  await db.schema.createTable('referral_sources', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('name').notNullable();
    t.integer('position').notNullable();
  });
  await db.raw(
    'CREATE UNIQUE INDEX referral_sources_company_name ON referral_sources (company_id, lower(name))',
  );

  await db.schema.createTable('jobs', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.integer('job_number').notNullable();
    t.text('title').notNullable();
    t.text('status_id').notNullable().references('statuses.id');
    t.timestamp('cancelled_at', { useTz: true });
    t.text('cancel_reason');
    t.text('loss_type');
    t.date('date_of_loss');
    t.text('cause_of_loss');
    t.integer('water_category');
    t.text('address_line1');
    t.text('city');
    t.text('region');
    t.text('postal_code');
    t.text('claim_number');
    t.text('carrier');
    t.text('policy_number');
    t.text('adjuster');
    t.text('referral_source');
    t.integer('photo_count').notNullable().defaultTo(0);
    // Lower-cased words and phone digits of the job and its people, kept by jobs/search-text.ts.
    t.text('search_text').notNullable().defaultTo('');
    t.text('search_digits').notNullable().defaultTo('');
    t.text('created_by').notNullable().references('people.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.unique(['company_id', 'job_number']);
    t.index(['company_id', 'status_id']);
  });
  await db.raw('CREATE INDEX jobs_search_text ON jobs USING gin (search_text gin_trgm_ops)');
  await db.raw('CREATE INDEX jobs_search_digits ON jobs USING gin (search_digits gin_trgm_ops)');

  await db.schema.createTable('contacts', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('name').notNullable();
    t.text('phone');
    t.text('email');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.index(['company_id']);
  });

  await db.schema.createTable('job_contacts', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('contact_id').notNullable().references('contacts.id');
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.index(['job_id']);
    t.index(['contact_id']);
  });

  await db.schema.createTable('job_assignees', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('person_id').notNullable().references('people.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.unique(['job_id', 'person_id']);
  });

  await db.schema.createTable('notes', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('author_id').notNullable().references('people.id');
    t.text('text').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.index(['job_id', 'created_at']);
  });

  await db.schema.createTable('drying_logs', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().unique().references('jobs.id');
    t.date('start_date').notNullable();
    t.integer('planned_days').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
  });

  await db.schema.createTable('idempotency_records', (t) => {
    t.text('company_id').notNullable().references('companies.id');
    t.text('operation_id').notNullable();
    t.text('tool').notNullable();
    t.text('fingerprint').notNullable();
    t.integer('status');
    // The answer exactly as first sent (text, not jsonb, which would reorder its keys).
    t.text('body');
    t.text('key_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['company_id', 'operation_id']);
    t.index(['created_at']);
  });

  // The change feed. `txid` is the writing transaction's id: a reader only returns entries of
  // transactions older than every one still running, in (txid, seq) order, so that an entry that
  // commits late can never land behind a poller's cursor (see platform/changes.ts).
  await db.schema.createTable('change_entries', (t) => {
    t.bigIncrements('seq');
    t.text('company_id').notNullable().references('companies.id');
    t.bigInteger('txid').notNullable();
    t.text('kind').notNullable();
    t.text('action').notNullable();
    t.text('summary').notNullable();
    t.text('job_id');
    t.integer('job_number');
    t.text('person_id').notNullable().references('people.id');
    t.text('key_id');
    t.boolean('via_key').notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['company_id', 'txid', 'seq']);
    t.index(['company_id', 'kind', 'txid', 'seq']);
  });

  await db.schema.createTable('undo_actions', (t) => {
    t.text('id').primary();
    t.bigIncrements('position', { primaryKey: false });
    t.text('company_id').notNullable().references('companies.id');
    t.text('key_id').notNullable();
    t.text('tool').notNullable();
    t.text('kind').notNullable();
    t.text('summary').notNullable();
    t.text('job_id');
    t.integer('job_number');
    t.jsonb('rows').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('undone_at', { useTz: true });
    t.index(['key_id', 'position']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'undo_actions',
    'change_entries',
    'idempotency_records',
    'drying_logs',
    'notes',
    'job_assignees',
    'job_contacts',
    'contacts',
    'jobs',
    'referral_sources',
    'statuses',
    'api_keys',
    'people',
    'companies',
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
