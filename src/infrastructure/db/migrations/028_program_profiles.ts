import type { Knex } from 'knex';

/**
 * Carrier program profiles: a company's written-down rules of a carrier's or administrator's
 * program (rules are `ProgramRule`s of the spec, kept as sent once checked). A job may choose
 * one; a profile's deletion sends the jobs that chose it back to their carrier's profile.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('program_profiles', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('name').notNullable();
    t.jsonb('carriers').notNullable().defaultTo('[]');
    t.jsonb('rules').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['company_id']);
  });
  await db.schema.alterTable('jobs', (t) => {
    t.text('program_profile_id').references('program_profiles.id').onDelete('SET NULL');
  });
  // A profile's deletion finds the jobs that chose it through this, not a scan of every job.
  await db.raw(
    'create index jobs_program_profile on jobs (program_profile_id) where program_profile_id is not null',
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('jobs', (t) => t.dropColumn('program_profile_id'));
  await db.schema.dropTable('program_profiles');
}
