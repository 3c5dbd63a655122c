/** The database of this service, ready to use: its schema up to date, then the reference data shipped with the service. */
import type { Knex } from 'knex';
import { migrateSchema } from './infrastructure/db/migrate';
import { syncStandards } from './domain/standards/corpus';

export async function migrateToLatest(db: Knex): Promise<void> {
  await migrateSchema(db);
  await syncStandards(db);
}
