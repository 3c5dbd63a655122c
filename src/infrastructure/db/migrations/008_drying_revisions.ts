import type { Knex } from 'knex';

const CHILDREN = ['drying_areas', 'drying_readings', 'drying_notes', 'drying_skips'];

/**
 * Every change to a drying log, or to its areas, readings, notes and skipped days, gives the log a
 * new `revision`, drawn from a sequence so that it never repeats (undo puts back a row's earlier
 * content, revision included: the trigger replaces it). A node may keep what it computed from a
 * log for as long as the revision it read is the log's: writes, undo and other nodes all pass
 * through these triggers.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('create sequence drying_revisions');
  await db.raw(
    "alter table drying_logs add column revision bigint not null default nextval('drying_revisions')",
  );
  await db.raw(`create function drying_log_revised() returns trigger language plpgsql as $$
    begin
      new.revision := nextval('drying_revisions');
      return new;
    end $$`);
  await db.raw(
    'create trigger drying_logs_revised before update on drying_logs for each row execute function drying_log_revised()',
  );
  await db.raw(`create function drying_log_rows_changed() returns trigger language plpgsql as $$
    begin
      update drying_logs set revision = 0 where id in (select distinct log_id from changed_rows);
      return null;
    end $$`);
  for (const table of CHILDREN) {
    for (const [event, rows] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ]) {
      await db.raw(
        `create trigger ${table}_${event}_revises after ${event} on ${table} referencing ${rows} table as changed_rows for each statement execute function drying_log_rows_changed()`,
      );
    }
  }
}

export async function down(db: Knex): Promise<void> {
  for (const table of CHILDREN) {
    for (const event of ['insert', 'update', 'delete'])
      await db.raw(`drop trigger ${table}_${event}_revises on ${table}`);
  }
  await db.raw('drop trigger drying_logs_revised on drying_logs');
  await db.raw('drop function drying_log_rows_changed()');
  await db.raw('drop function drying_log_revised()');
  await db.raw('alter table drying_logs drop column revision');
  await db.raw('drop sequence drying_revisions');
}
