import type { Knex } from 'knex';

/**
 * What exports may share of a photo: `shareable_sha256` is the SHA-256 of the original without
 * its location (the stored `shareable` variant), the original's own SHA-256 when it carries no
 * location, and null until the file has been looked at (photos stored before this migration are
 * looked at when first exported).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('stored_files', (t) => {
    t.text('shareable_sha256');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('stored_files', (t) => {
    t.dropColumn('shareable_sha256');
  });
}
