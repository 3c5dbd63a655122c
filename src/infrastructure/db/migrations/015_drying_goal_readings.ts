import type { Knex } from 'knex';

/**
 * The readings that set a material's dry goal (marked references, or read in an unaffected
 * place) are a handful in a log of thousands: each new reading looks them up, and without this
 * index read every reading of its log to find them.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(
    "CREATE INDEX drying_readings_goals ON drying_readings (log_id, metric) WHERE reference OR location = 'unaffected'",
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX drying_readings_goals');
}
