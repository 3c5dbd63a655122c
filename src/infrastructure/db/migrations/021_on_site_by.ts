import type { Knex } from 'knex';

/**
 * Who did it on site: the teammate (who may have no key) who took a reading, wrote a drying note,
 * placed or removed a unit, or took a photo, besides the key's person who entered it. Null when
 * the request did not say: then the key's person did.
 */
const COLUMNS: [table: string, column: string][] = [
  ['drying_readings', 'on_site_by'],
  ['drying_notes', 'on_site_by'],
  ['drying_equipment', 'placed_on_site_by'],
  ['drying_equipment', 'removed_on_site_by'],
  ['photos', 'on_site_by'],
];

export async function up(db: Knex): Promise<void> {
  for (const [table, column] of COLUMNS) {
    await db.schema.alterTable(table, (t) => {
      t.text(column).references('people.id');
    });
  }
}

export async function down(db: Knex): Promise<void> {
  for (const [table, column] of COLUMNS) {
    await db.schema.alterTable(table, (t) => {
      t.dropColumn(column);
    });
  }
}
