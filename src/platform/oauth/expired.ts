/**
 * What the hourly sweep deletes of OAuth: authorization codes, access and refresh tokens, pending
 * approvals and sign-in links, once expired for more than a day. Grants stay: the admin's list
 * shows each one, revoked or not, with the feed entries made through it.
 */
import type { Knex } from 'knex';

/**
 * How long an expired row is kept. Meanwhile a client is told its token "has expired" rather than
 * "is unknown", and a code used twice still ends the grant it gave (a refresh token rotated away
 * is kept its whole 30 days anyway, so a second use ends the grant for as long as it could work).
 */
export const EXPIRED_KEPT_HOURS = 24;
const PURGE_BATCH = 500;

const EXPIRING = [
  { table: 'oauth_codes', key: 'code_hash' },
  { table: 'oauth_tokens', key: 'token_hash' },
  { table: 'oauth_requests', key: 'id' },
  { table: 'oauth_sign_ins', key: 'code_hash' },
] as const;

/** Deletes every row expired for more than EXPIRED_KEPT_HOURS; resolves with the number deleted. */
export async function purgeExpiredOAuthRows(db: Knex): Promise<number> {
  let deleted = 0;
  for (const { table, key } of EXPIRING) deleted += await purgeExpired(db, table, key);
  return deleted;
}

/** A small batch at a time, as the idempotency records' purge, so that no statement runs long. */
async function purgeExpired(db: Knex, table: string, key: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const expired = db(table)
      .where('expires_at', '<', db.raw('now() - make_interval(hours => ?)', [EXPIRED_KEPT_HOURS]))
      .limit(PURGE_BATCH)
      .forUpdate()
      .skipLocked()
      .select(key);
    // The rows, not the count: PGlite's driver does not answer a DELETE with a number.
    const gone = await db(table).whereIn(key, expired).delete().returning(key);
    deleted += gone.length;
    if (gone.length < PURGE_BATCH) return deleted;
  }
}
