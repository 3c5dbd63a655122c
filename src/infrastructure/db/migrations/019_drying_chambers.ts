import type { Knex } from 'knex';

/**
 * Drying chambers: a log's areas grouped, each chamber with its water category (1–3) and, when
 * given, its class (1–4). An area's wet surfaces (floor, walls above 2 ft, ceiling, in square
 * feet) and wall offsets feed the chamber's computed class and its S500 equipment plan. A change
 * revises the log, as its other rows do (migration 008).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('drying_chambers', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('log_id').notNullable().references('drying_logs.id');
    t.text('name').notNullable();
    t.integer('category').notNullable();
    t.integer('given_class');
    t.text('note');
    t.integer('position').notNullable();
    t.integer('version').notNullable().defaultTo(1);
  });
  await db.raw('CREATE UNIQUE INDEX drying_chambers_name ON drying_chambers (log_id, lower(name))');
  await db.schema.alterTable('drying_areas', (t) => {
    t.text('chamber_id').references('drying_chambers.id');
    t.integer('wet_floor_sqft');
    t.integer('wet_wall_sqft');
    t.integer('wet_ceiling_sqft');
    t.integer('wall_offsets');
    t.index(['chamber_id']);
  });
  for (const [event, rows] of [
    ['insert', 'new'],
    ['update', 'new'],
    ['delete', 'old'],
  ]) {
    await db.raw(
      `create trigger drying_chambers_${event}_revises after ${event} on drying_chambers referencing ${rows} table as changed_rows for each statement execute function drying_log_rows_changed()`,
    );
  }
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('drying_areas', (t) => {
    t.dropColumn('chamber_id');
    t.dropColumn('wet_floor_sqft');
    t.dropColumn('wet_wall_sqft');
    t.dropColumn('wet_ceiling_sqft');
    t.dropColumn('wall_offsets');
  });
  await db.schema.dropTable('drying_chambers');
}
