import type { Knex } from 'knex';

/**
 * The dehumidifier a reading of its inlet or outlet air was taken at, which gives a grain
 * depression per unit (a unit taken back by undo leaves its readings as the area's dehumidifier
 * air), and the meter a material was read with, which a reviewer asks of the reference.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('drying_readings', (t) => {
    t.text('equipment_id').references('drying_equipment.id').onDelete('SET NULL');
    t.text('meter');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('drying_readings', (t) => {
    t.dropColumn('equipment_id');
    t.dropColumn('meter');
  });
}
