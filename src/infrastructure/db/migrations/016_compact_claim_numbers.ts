import type { Knex } from 'knex';

/**
 * find_jobs matches claim and policy numbers with punctuation and spaces ignored: a job's
 * search_text also holds each of them compacted (letters and digits only, lower case) where that
 * differs from the number as written (src/domain/jobs/search-text.ts), in this order, last.
 */
const COMPACT = (column: string) => `lower(regexp_replace(${column}, '[^A-Za-z0-9]', '', 'g'))`;

export async function up(db: Knex): Promise<void> {
  for (const column of ['claim_number', 'policy_number']) {
    await db.raw(
      `UPDATE jobs SET search_text = search_text || ' | ' || ${COMPACT(column)} WHERE ${COMPACT(column)} <> '' AND ${COMPACT(column)} <> lower(${column})`,
    );
  }
}

export async function down(): Promise<void> {
  // The extra words only widen matches; leaving them is harmless.
}
