/**
 * Authentication. API keys (`Authorization: Bearer jms_…`) for /api/v1 and /mcp resolve to a
 * Caller; the admin token guards /admin/v1. A missing, unknown or revoked key is a 401 with
 * `WWW-Authenticate: Bearer`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Knex } from 'knex';
import { ApiError } from './errors';
import { hashSecret } from './ids';
import { callerOfKey, isKnownKey } from './key-cache';
import type { RateLimiter } from './rate-limit';
import type { Caller } from './caller';

const LAST_USED_RESOLUTION_MS = 60_000;
/** What newApiKey makes: anything else cannot be a key, and is refused without a look-up. */
const KEY_FORMAT = /^jms_[0-9A-Za-z]{40}$/;

/** RFC 6750: the header's quoted values may not hold quotes or backslashes. */
function unauthorized(detail: string, error: 'invalid_request' | 'invalid_token'): ApiError {
  const description = detail.replace(/["\\]/g, "'");
  return new ApiError(401, 'unauthorized', detail, {
    headers: { 'WWW-Authenticate': `Bearer realm="jms", error="${error}", error_description="${description}"` },
  });
}

function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1] : null;
}

export async function findCaller(db: Knex, key: string): Promise<Caller | null> {
  return callerWhere(db, { 'k.secret_hash': hashSecret(key) });
}

/** The caller a key id acts as, while the key is not revoked: for links a key made (the upload page). */
export async function findCallerOfKeyId(db: Knex, keyId: string): Promise<Caller | null> {
  return callerWhere(db, { 'k.id': keyId });
}

async function callerWhere(db: Knex, where: Record<string, string>): Promise<Caller | null> {
  const row = await db('api_keys as k')
    .join('people as p', 'p.id', 'k.person_id')
    .join('companies as c', 'c.id', 'k.company_id')
    .where(where)
    .whereNull('k.revoked_at')
    .first(
      'k.id as key_id', 'k.prefix', 'k.scope', 'k.last_used_at', 'p.id as person_id', 'p.name as person_name',
      'p.role as person_role', 'c.id as company_id', 'c.name as company_name', 'c.timezone', 'c.chat_webhook_url', 'c.chat_new_note',
    );
  if (!row) return null;
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
    await db('api_keys').where({ id: row.key_id }).update({ last_used_at: db.fn.now() });
  }
  return {
    keyId: row.key_id,
    keyPrefix: row.prefix,
    scope: row.scope,
    personId: row.person_id,
    personName: row.person_name,
    personRole: row.person_role,
    companyId: row.company_id,
    companyName: row.company_name,
    timezone: row.timezone,
    chat: { webhookUrl: row.chat_webhook_url, newNote: row.chat_new_note },
  };
}

/** The client's address as the service sees it (behind a proxy: set TRUST_PROXY). */
function addressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * Sets `res.locals.caller` for a valid API key. Failures count against the client's address; an
 * address over its limit is refused before an unknown key is looked up.
 */
export function requireApiKey(db: Knex, limiter: RateLimiter) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = bearerToken(req);
    const address = addressOf(req);
    if (!key) {
      await limiter.countFailure(address);
      throw unauthorized('Send an API key as "Authorization: Bearer <key>".', 'invalid_request');
    }
    const hash = hashSecret(key);
    const caller = KEY_FORMAT.test(key) ? await lookUp(db, key, hash, limiter, address) : null;
    if (!caller) {
      await limiter.countFailure(address);
      throw unauthorized('The API key is unknown or has been revoked.', 'invalid_token');
    }
    res.locals.caller = caller;
    next();
  };
}

async function lookUp(db: Knex, key: string, hash: string, limiter: RateLimiter, address: string): Promise<Caller | null> {
  if (!isKnownKey(hash)) await limiter.refuseFailingAddress(address);
  return callerOfKey(hash, () => findCaller(db, key));
}


/**
 * The admin API answers 404 when no ADMIN_TOKEN is configured, 401 for a wrong token (counted
 * against the address, as for keys), and has a rate limit of its own.
 */
export function requireAdminToken(adminToken: string | undefined, limiter: RateLimiter) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!adminToken) throw new ApiError(404, 'admin_api_disabled', 'The admin API is off: set ADMIN_TOKEN to turn it on.');
    const given = bearerToken(req);
    if (!given || !sameSecret(given, adminToken)) {
      await limiter.countFailure(addressOf(req));
      throw unauthorized('Send the admin token as "Authorization: Bearer <ADMIN_TOKEN>".', 'invalid_token');
    }
    await limiter.charge(res, 'admin', 'admin', 1);
    next();
  };
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(hashSecret(a));
  const right = Buffer.from(hashSecret(b));
  return timingSafeEqual(left, right);
}
