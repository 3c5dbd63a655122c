import type { Knex } from 'knex';

/**
 * Photos. A stored file (`stored_files`) is kept once per company and content (SHA-256): the
 * original and its renditions live in the file store under keys made from both, and photos of
 * any job of the company point at it. A job's photos are unique by content. `job_rooms` holds
 * the rooms photos added to a job (its estimates' rooms are its rooms too). `jobs.photo_count`
 * follows the photos through a trigger, so that undo keeps it right as well.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('service_secrets', (t) => {
    t.text('name').primary();
    t.text('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('stored_files', (t) => {
    t.text('company_id').notNullable().references('companies.id');
    t.text('sha256').notNullable();
    t.text('kind').notNullable();
    t.text('format').notNullable();
    t.bigInteger('bytes').notNullable();
    t.integer('width');
    t.integer('height');
    t.jsonb('taken');
    t.jsonb('renditions').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_used_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['company_id', 'sha256']);
  });
  await db.schema.createTable('job_rooms', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('name').notNullable();
    t.integer('version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw('create unique index job_rooms_name on job_rooms (job_id, lower(name))');
  await db.schema.createTable('photos', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('sha256').notNullable();
    t.text('room');
    t.text('caption');
    t.text('name');
    t.timestamp('taken_at', { useTz: true }).notNullable();
    t.text('taken_at_source').notNullable();
    t.text('uploaded_by').notNullable().references('people.id');
    t.text('uploaded_via').notNullable();
    t.integer('version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.foreign(['company_id', 'sha256']).references(['company_id', 'sha256']).inTable('stored_files');
  });
  await db.raw('create unique index photos_content on photos (job_id, sha256)');
  await db.raw('create index photos_newest on photos (job_id, taken_at desc, id desc)');
  await db.raw(`create function jobs_count_photos() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        update jobs j set photo_count = j.photo_count + c.n from (select job_id, count(*) as n from changed_rows group by job_id) c where j.id = c.job_id;
      else
        update jobs j set photo_count = j.photo_count - c.n from (select job_id, count(*) as n from changed_rows group by job_id) c where j.id = c.job_id;
      end if;
      return null;
    end $$`);
  await db.raw(
    'create trigger photos_insert_counts after insert on photos referencing new table as changed_rows for each statement execute function jobs_count_photos()',
  );
  await db.raw(
    'create trigger photos_delete_counts after delete on photos referencing old table as changed_rows for each statement execute function jobs_count_photos()',
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop trigger photos_insert_counts on photos');
  await db.raw('drop trigger photos_delete_counts on photos');
  await db.raw('drop function jobs_count_photos()');
  await db.schema.dropTable('photos');
  await db.schema.dropTable('job_rooms');
  await db.schema.dropTable('stored_files');
  await db.schema.dropTable('service_secrets');
}
