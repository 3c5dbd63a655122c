import type { Knex } from 'knex';

/**
 * A grant approved with a key now ends (`revoked_at`) in the transaction that revokes or rotates
 * the key. Grants whose key ended before are marked now: at the key's revocation when known, at
 * the migration for a rotation (its time was not kept).
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    update oauth_grants g set revoked_at = coalesce(k.revoked_at, now())
    from api_keys k
    where k.id = g.key_id and g.revoked_at is null
      and (k.revoked_at is not null or k.secret_hash <> g.key_secret_hash)`);
}

/** The grants stay ended: their keys ended too. */
export async function down(): Promise<void> {}
