import type { Knex } from 'knex';

/**
 * Form templates (issue #44): a company's paperwork to be signed (work authorization,
 * certificate of completion, …) as Markdown with placeholders, and its versions. A version is
 * never changed once published: a form keeps the version it was made from, and a new text is a
 * new version. Keys start with company_id, as every new tenant table's do (Citus by company).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('form_templates', (t) => {
    t.text('company_id').notNullable().references('companies.id');
    t.text('id').notNullable();
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.integer('current_version').notNullable();
    t.timestamp('archived_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['company_id', 'id']);
  });
  await db.schema.createTable('form_template_versions', (t) => {
    t.text('company_id').notNullable();
    t.text('template_id').notNullable();
    t.integer('version').notNullable();
    t.text('body').notNullable();
    t.jsonb('fields').notNullable().defaultTo('[]');
    t.jsonb('signers').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['company_id', 'template_id', 'version']);
    t.foreign(['company_id', 'template_id']).references(['company_id', 'id']).inTable('form_templates');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('form_template_versions');
  await db.schema.dropTable('form_templates');
}
