import type { Knex } from 'knex';

/**
 * The drying log's areas, readings, notes and skipped days, the estimate a log is tied to, and
 * the elevation (of the company, or of one log) that sets the air pressure of its
 * psychrometrics. Reading values are integer hundredths of their unit, °F for temperatures.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('companies', (t) => {
    t.integer('elevation_ft').notNullable().defaultTo(0);
  });
  await db.schema.alterTable('drying_logs', (t) => {
    t.text('estimate_id').references('estimates.id');
    t.integer('elevation_ft');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable('drying_areas', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('log_id').notNullable().references('drying_logs.id');
    t.text('name').notNullable();
    t.integer('planned_days');
    t.integer('position').notNullable();
    t.integer('version').notNullable().defaultTo(1);
  });
  await db.raw('CREATE UNIQUE INDEX drying_areas_name ON drying_areas (log_id, lower(name))');

  // A month of a job's readings is 1,200 rows in one statement, and every foreign key is checked
  // row by row: only the two that undo relies on (a log or area cannot be taken back while
  // readings use it) are kept; the company and the person come from the log and the key.
  await db.schema.createTable('drying_readings', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable();
    t.text('log_id').notNullable().references('drying_logs.id');
    t.text('area_id').references('drying_areas.id');
    t.integer('day').notNullable();
    t.text('location').notNullable();
    t.text('metric').notNullable();
    t.integer('value_x100').notNullable();
    t.text('point');
    t.boolean('reference').notNullable().defaultTo(false);
    t.text('source_of_values').notNullable();
    t.text('recorded_by').notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    // Order within its request: of two readings of one thing sent together, the later one counts.
    t.integer('position').notNullable();
    t.integer('version').notNullable().defaultTo(1);
    t.index(['log_id', 'day']);
  });

  await db.schema.createTable('drying_notes', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('log_id').notNullable().references('drying_logs.id');
    t.text('area_id').references('drying_areas.id');
    t.integer('day');
    t.text('text').notNullable();
    t.text('author_id').notNullable().references('people.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
    t.index(['log_id']);
  });

  await db.schema.createTable('drying_skips', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('log_id').notNullable().references('drying_logs.id');
    t.text('area_id').references('drying_areas.id');
    t.integer('day').notNullable();
    t.text('reason');
    t.text('created_by').notNullable().references('people.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('version').notNullable().defaultTo(1);
  });
  // One skip per day and area, and one per day for every area (no area).
  await db.raw("CREATE UNIQUE INDEX drying_skips_day ON drying_skips (log_id, day, coalesce(area_id, ''))");
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['drying_skips', 'drying_notes', 'drying_readings', 'drying_areas'])
    await db.schema.dropTable(table);
  await db.schema.alterTable('drying_logs', (t) => {
    t.dropColumn('estimate_id');
    t.dropColumn('elevation_ft');
    t.dropColumn('updated_at');
  });
  await db.schema.alterTable('companies', (t) => {
    t.dropColumn('elevation_ft');
  });
}
