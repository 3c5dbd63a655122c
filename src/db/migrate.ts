import type { Knex } from 'knex';
import * as foundation from './migrations/001_foundation';

/** Migrations are listed here, in order, so that they run the same under tsx, jest and tsc. */
const migrations: Record<string, { up(db: Knex): Promise<void>; down(db: Knex): Promise<void> }> = {
  '001_foundation': foundation,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};

export async function migrateToLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource: source });
}
