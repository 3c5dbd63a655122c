import type { Knex } from 'knex';

/**
 * Forms sent for signature (request_signature) and their signers. A form keeps the exact text it
 * was sent with (the template's body with the job's fields filled in, frozen) and its SHA-256, so
 * that what is signed never changes with the template. Each signer has a link of their own and
 * records when it was opened and signed, from which address and browser, and what they gave:
 * the consent they agreed to, their fields, typed name and signature. Once every signer has
 * signed, the form keeps the signed PDF's SHA-256 and the job's document that holds it.
 *
 * Both tables carry `company_id` in their primary keys (and in the keys between them), as new
 * tables do for a database sharded by company (issue #47).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('job_forms', (t) => {
    t.text('company_id').notNullable().references('companies.id');
    t.text('id').notNullable();
    t.text('job_id').notNullable().references('jobs.id');
    t.text('template_id').notNullable();
    t.integer('template_version').notNullable();
    t.text('title').notNullable();
    t.text('kind').notNullable();
    /** The filled Markdown as sent; `{{fill.key}}` marks where a signer's value goes. */
    t.text('body').notNullable();
    t.text('document_sha256').notNullable();
    /** The template's fields (key, label, type, required, signer) as they were when sent. */
    t.jsonb('fields').notNullable();
    /** sent, opened, signed, declined or voided; `expired` is derived from expires_at. */
    t.text('state').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('requested_by').notNullable().references('people.id');
    /** The key that asked: its links act for it, and revoking it ends them. */
    t.text('key_id').notNullable();
    t.timestamp('signed_at', { useTz: true });
    t.text('signed_pdf_sha256');
    t.text('signed_document_id').references('documents.id');
    t.timestamp('declined_at', { useTz: true });
    t.timestamp('voided_at', { useTz: true });
    t.text('voided_by').references('people.id');
    t.text('void_reason');
    t.integer('version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['company_id', 'id']);
    t.foreign(['company_id', 'signed_pdf_sha256'])
      .references(['company_id', 'sha256'])
      .inTable('stored_files');
  });
  await db.raw('create index job_forms_of_job on job_forms (company_id, job_id, created_at desc, id desc)');

  await db.schema.createTable('job_form_signers', (t) => {
    t.text('company_id').notNullable().references('companies.id');
    t.text('id').notNullable();
    t.text('form_id').notNullable();
    /** customer, technician or office. */
    t.text('role').notNullable();
    t.text('contact_id').references('contacts.id');
    t.text('person_id').references('people.id');
    t.text('name').notNullable();
    t.text('email');
    t.text('phone');
    /** sent, opened, signed or declined. */
    t.text('state').notNullable();
    /** A short digest of the link's signature: which link was used, without the link itself. */
    t.text('link_id').notNullable();
    t.timestamp('opened_at', { useTz: true });
    t.text('opened_ip');
    t.text('opened_user_agent');
    t.timestamp('signed_at', { useTz: true });
    t.text('signed_ip');
    t.text('signed_user_agent');
    t.text('typed_name');
    /** `{ strokes, width, height }` or `{ png }` (base64), as the signer drew it. */
    t.jsonb('signature');
    /** The signer's values of their fields, by key. */
    t.jsonb('field_values');
    t.text('consent_version');
    t.text('consent_text');
    t.timestamp('declined_at', { useTz: true });
    t.text('decline_reason');
    t.integer('version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['company_id', 'id']);
    t.unique(['company_id', 'form_id', 'role']);
    t.foreign(['company_id', 'form_id']).references(['company_id', 'id']).inTable('job_forms');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('job_form_signers');
  await db.schema.dropTable('job_forms');
}
