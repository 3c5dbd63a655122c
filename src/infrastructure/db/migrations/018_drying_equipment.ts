import type { Knex } from 'knex';

/**
 * Drying equipment on a job's log: each unit placed in an area on a date and removed on a date
 * (null while on site), with its kind, a dehumidifier's type and AHAM pints a day, and an asset
 * tag. A change to a unit revises its log, as its other rows do (migration 008).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('drying_equipment', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('log_id').notNullable().references('drying_logs.id');
    t.text('area_id').notNullable().references('drying_areas.id');
    t.text('kind').notNullable();
    t.text('dehumidifier_type');
    t.integer('pints_per_day');
    t.text('asset_tag');
    t.date('placed_on').notNullable();
    t.date('removed_on');
    t.integer('position').notNullable();
    t.text('placed_by').notNullable().references('people.id');
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['log_id', 'position']);
    t.index(['area_id']);
  });
  for (const [event, rows] of [
    ['insert', 'new'],
    ['update', 'new'],
    ['delete', 'old'],
  ]) {
    await db.raw(
      `create trigger drying_equipment_${event}_revises after ${event} on drying_equipment referencing ${rows} table as changed_rows for each statement execute function drying_log_rows_changed()`,
    );
  }
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('drying_equipment');
}
