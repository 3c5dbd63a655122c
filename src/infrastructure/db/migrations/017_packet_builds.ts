import type { Knex } from 'knex';

/**
 * PDF packets are built on the job queue before they are downloaded (src/domain/exports/
 * packet-builds.ts). A build's row is written first, with the key of its file, so that the store
 * never holds a packet no row names. One build is current per packet and stamp (what the job's
 * feed and the company's date were when it was asked for): twenty downloads at once share it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('packet_builds', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('job_id').notNullable().references('jobs.id');
    t.text('documents').notNullable();
    t.text('estimate_id').notNullable().defaultTo('');
    t.text('stamp').notNullable();
    t.text('key_id').notNullable();
    t.text('state').notNullable();
    t.integer('photos_done').notNullable().defaultTo(0);
    t.integer('photos_total').notNullable().defaultTo(0);
    t.integer('estimate_version');
    t.text('file_key').notNullable();
    t.bigInteger('bytes');
    t.bigInteger('delivered_bytes').notNullable().defaultTo(0);
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('built_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['last_used_at']);
  });
  await db.raw(
    `CREATE UNIQUE INDEX packet_builds_current ON packet_builds (company_id, job_id, documents, estimate_id, stamp) WHERE state <> 'failed'`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('packet_builds');
}
