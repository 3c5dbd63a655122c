import type { Knex } from 'knex';

/**
 * Estimates with rooms and lines, the company's estimate rates, and the standards corpus with
 * its full-text index. Quantities and feet are stored as integer hundredths and money as
 * integer cents, so that totals are exact.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('companies', (t) => {
    t.integer('overhead_rate_bp').notNullable().defaultTo(1000);
    t.integer('profit_rate_bp').notNullable().defaultTo(1000);
    t.integer('tax_rate_bp').notNullable().defaultTo(0);
  });

  await db.schema.createTable('estimates', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('label').notNullable();
    t.text('scope_summary');
    t.integer('drying_days');
    t.text('status').notNullable().defaultTo('draft');
    t.timestamp('finalized_at', { useTz: true });
    t.text('region_code');
    t.integer('region_factor_x100').notNullable();
    t.integer('overhead_rate_bp').notNullable();
    t.integer('profit_rate_bp').notNullable();
    t.integer('tax_rate_bp').notNullable();
    t.text('created_by').notNullable().references('people.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.index(['job_id']);
  });

  await db.schema.createTable('estimate_rooms', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('estimate_id').notNullable().references('estimates.id');
    t.text('name').notNullable();
    t.integer('length_x100');
    t.integer('width_x100');
    t.integer('height_x100');
    t.integer('demo_days').notNullable().defaultTo(0);
    t.integer('drying_days').notNullable().defaultTo(0);
    t.integer('position').notNullable();
    t.integer('version').notNullable().defaultTo(1);
  });
  await db.raw('CREATE UNIQUE INDEX estimate_rooms_name ON estimate_rooms (estimate_id, lower(name))');

  await db.schema.createTable('estimate_lines', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('estimate_id').notNullable().references('estimates.id');
    t.text('room_id').references('estimate_rooms.id');
    t.text('code');
    t.text('description').notNullable();
    t.text('unit').notNullable();
    t.text('category');
    t.boolean('per_day').notNullable().defaultTo(false);
    // A day-billed line set by units per day has no quantity of its own: it follows the days.
    t.integer('units_per_day_x100');
    t.integer('quantity_x100');
    t.integer('unit_price_cents').notNullable();
    t.text('note');
    t.integer('position').notNullable();
    t.integer('version').notNullable().defaultTo(1);
    t.index(['estimate_id']);
  });

  await db.schema.createTable('standards_passages', (t) => {
    t.text('id').primary();
    t.text('heading').notNullable();
    t.text('text').notNullable();
    t.text('topics').notNullable();
    t.text('source_title').notNullable();
    t.text('publisher').notNullable();
    t.text('section').notNullable();
    t.text('url').notNullable();
  });
  await db.raw(`ALTER TABLE standards_passages ADD COLUMN document tsvector
    GENERATED ALWAYS AS (to_tsvector('english', heading || ' ' || topics || ' ' || text)) STORED`);
  await db.raw('CREATE INDEX standards_passages_document ON standards_passages USING gin (document)');

  await db.schema.createTable('reference_versions', (t) => {
    t.text('name').primary();
    t.text('version').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'reference_versions',
    'standards_passages',
    'estimate_lines',
    'estimate_rooms',
    'estimates',
  ]) {
    await db.schema.dropTable(table);
  }
  await db.schema.alterTable('companies', (t) => {
    t.dropColumns('overhead_rate_bp', 'profit_rate_bp', 'tax_rate_bp');
  });
}
