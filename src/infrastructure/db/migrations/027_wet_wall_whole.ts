import type { Knex } from 'knex';

/**
 * A drying area's wet wall as a whole: how high its walls are wet (hundredths of a foot) or the
 * wet wall in all (square feet), beside `wet_wall_sqft` (the part more than 2 ft up). The
 * chamber's class counts the whole; its air movers the part above 2 ft, derived from these.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('drying_areas', (t) => {
    t.integer('wet_wall_height_x100');
    t.integer('wet_wall_total_sqft');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('drying_areas', (t) => {
    t.dropColumn('wet_wall_height_x100');
    t.dropColumn('wet_wall_total_sqft');
  });
}
