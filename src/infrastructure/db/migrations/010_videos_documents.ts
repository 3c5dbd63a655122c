import type { Knex } from 'knex';

/**
 * Videos and documents. Their files are stored files like photos' (one per company and
 * content); `stored_files.facts` keeps what was read from a video (length, codec, recording
 * time) or a document (kind, pages, whether it opens without a password). `document_pages`
 * caches each page's text once read (text layer or OCR), per stored file, so that a page is
 * read once whatever job holds the document; it goes with the stored file.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('stored_files', (t) => {
    t.jsonb('facts');
  });
  await db.schema.createTable('videos', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('sha256').notNullable();
    t.text('room');
    t.text('caption');
    t.text('name');
    t.timestamp('recorded_at', { useTz: true }).notNullable();
    t.text('recorded_at_source').notNullable();
    t.text('uploaded_by').notNullable().references('people.id');
    t.text('uploaded_via').notNullable();
    t.integer('version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.foreign(['company_id', 'sha256']).references(['company_id', 'sha256']).inTable('stored_files');
  });
  await db.raw('create unique index videos_content on videos (job_id, sha256)');
  await db.raw('create index videos_newest on videos (job_id, recorded_at desc, id desc)');
  await db.schema.createTable('documents', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('sha256').notNullable();
    t.text('room');
    t.text('name');
    t.text('uploaded_by').notNullable().references('people.id');
    t.text('uploaded_via').notNullable();
    t.integer('version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.foreign(['company_id', 'sha256']).references(['company_id', 'sha256']).inTable('stored_files');
  });
  await db.raw('create unique index documents_content on documents (job_id, sha256)');
  await db.raw('create index documents_newest on documents (job_id, created_at desc, id desc)');
  await db.schema.createTable('document_pages', (t) => {
    t.text('company_id').notNullable();
    t.text('sha256').notNullable();
    t.integer('page').notNullable();
    t.text('source').notNullable();
    t.text('text').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['company_id', 'sha256', 'page']);
    t.foreign(['company_id', 'sha256'])
      .references(['company_id', 'sha256'])
      .inTable('stored_files')
      .onDelete('CASCADE');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('document_pages');
  await db.schema.dropTable('documents');
  await db.schema.dropTable('videos');
  await db.schema.alterTable('stored_files', (t) => {
    t.dropColumn('facts');
  });
}
