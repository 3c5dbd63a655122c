import type { Knex } from 'knex';

/**
 * OAuth 2.1 for assistants: the clients that asked (registered, or known by their metadata
 * document's URL), the authorizations waiting on the approval page, the grants a person approved,
 * their codes and tokens, and the one-time sign-in codes an admin makes. Every secret (code,
 * token, sign-in code) is stored as its SHA-256 only. A feed entry made through a grant names its
 * client.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('oauth_clients', (t) => {
    t.text('id').primary();
    t.text('kind').notNullable(); // registered | metadata_document
    t.jsonb('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('fetched_at', { useTz: true });
  });
  await db.schema.createTable('oauth_requests', (t) => {
    t.text('id').primary();
    t.text('client_id').notNullable().references('oauth_clients.id');
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable();
    t.text('scope').notNullable();
    t.text('resource').notNullable();
    t.text('state');
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
  await db.schema.createTable('oauth_sign_ins', (t) => {
    t.text('code_hash').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('person_id').notNullable().references('people.id');
    t.text('scope').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
  });
  await db.schema.createTable('oauth_grants', (t) => {
    t.text('id').primary();
    t.text('company_id').notNullable().references('companies.id');
    t.text('person_id').notNullable().references('people.id');
    // Approved with a key: the grant lasts while the key does, with the secret it had then.
    t.text('key_id').references('api_keys.id');
    t.text('key_secret_hash');
    t.text('client_id').notNullable().references('oauth_clients.id');
    t.text('client_name').notNullable();
    t.text('scope').notNullable();
    t.jsonb('toolsets');
    t.text('resource').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['company_id', 'created_at']);
  });
  await db.schema.createTable('oauth_codes', (t) => {
    t.text('code_hash').primary();
    t.text('grant_id').notNullable().references('oauth_grants.id');
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
  });
  await db.schema.createTable('oauth_tokens', (t) => {
    t.text('token_hash').primary();
    t.text('grant_id').notNullable().references('oauth_grants.id');
    t.text('kind').notNullable(); // access | refresh
    t.text('code_hash').notNullable(); // the code the token's line began with
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['grant_id']);
    t.index(['code_hash']);
  });
  await db.schema.alterTable('change_entries', (t) => {
    t.text('via_client');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('change_entries', (t) => {
    t.dropColumn('via_client');
  });
  for (const table of [
    'oauth_tokens',
    'oauth_codes',
    'oauth_grants',
    'oauth_sign_ins',
    'oauth_requests',
    'oauth_clients',
  ]) {
    await db.schema.dropTable(table);
  }
}
