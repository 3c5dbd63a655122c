import type { Knex } from 'knex';
import * as foundation from './migrations/001_foundation';
import * as peopleNotesChat from './migrations/002_people_notes_chat';
import * as estimatesStandards from './migrations/003_estimates_standards';
import * as searchStatistics from './migrations/004_search_statistics';
import { syncStandards } from '../tools/standards/corpus';

/** Migrations are listed here, in order, so that they run the same under tsx, jest and tsc. */
const migrations: Record<string, { up(db: Knex): Promise<void>; down(db: Knex): Promise<void> }> = {
  '001_foundation': foundation,
  '002_people_notes_chat': peopleNotesChat,
  '003_estimates_standards': estimatesStandards,
  '004_search_statistics': searchStatistics,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};

/** Brings the schema up to date, then the reference data shipped with the service. */
export async function migrateToLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource: source });
  await syncStandards(db);
}
