import type { Knex } from 'knex';

/** The hourly sweep deletes codes and tokens by their expiry (src/platform/oauth/expired.ts). */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('oauth_tokens', (t) => t.index(['expires_at']));
  await db.schema.alterTable('oauth_codes', (t) => t.index(['expires_at']));
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('oauth_codes', (t) => t.dropIndex(['expires_at']));
  await db.schema.alterTable('oauth_tokens', (t) => t.dropIndex(['expires_at']));
}
