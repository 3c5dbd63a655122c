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
import type { Caller } from './handler';

const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * Keys found are remembered for a few seconds, which saves a query on nearly every request. A
 * rotation or revocation clears this node's memory at once; other nodes follow within the TTL.
 */
const KEY_CACHE_TTL_MS = 5_000;
const knownKeys = new Map<string, { caller: Caller; until: number }>();

export function forgetKnownKeys(): void {
  knownKeys.clear();
}

function unauthorized(detail: string, error: string): ApiError {
  return new ApiError(401, 'unauthorized', detail, {
    headers: { 'WWW-Authenticate': `Bearer realm="jms", error="${error}", error_description="${detail}"` },
  });
}

function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1] : null;
}

export async function findCaller(db: Knex, key: string): Promise<Caller | null> {
  const row = await db('api_keys as k')
    .join('people as p', 'p.id', 'k.person_id')
    .join('companies as c', 'c.id', 'k.company_id')
    .where({ 'k.secret_hash': hashSecret(key) })
    .whereNull('k.revoked_at')
    .first(
      'k.id as key_id', 'k.prefix', 'k.scope', 'k.last_used_at', 'p.id as person_id', 'p.name as person_name',
      'p.role as person_role', 'c.id as company_id', 'c.name as company_name', 'c.timezone',
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
  };
}

async function cachedCaller(db: Knex, key: string): Promise<Caller | null> {
  const hash = hashSecret(key);
  const known = knownKeys.get(hash);
  if (known && known.until > Date.now()) return known.caller;
  const caller = await findCaller(db, key);
  if (caller) knownKeys.set(hash, { caller, until: Date.now() + KEY_CACHE_TTL_MS });
  else knownKeys.delete(hash);
  return caller;
}

/** Sets `res.locals.caller` for a valid API key. */
export function requireApiKey(db: Knex) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = bearerToken(req);
    if (!key) throw unauthorized('Send an API key as "Authorization: Bearer <key>".', 'invalid_request');
    const caller = await cachedCaller(db, key);
    if (!caller) throw unauthorized('The API key is unknown or has been revoked.', 'invalid_token');
    res.locals.caller = caller;
    next();
  };
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

/** The admin API answers 404 when no ADMIN_TOKEN is configured, 401 for a wrong token. */
export function requireAdminToken(adminToken: string | undefined) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!adminToken) throw new ApiError(404, 'admin_api_disabled', 'The admin API is off: set ADMIN_TOKEN to turn it on.');
    const given = bearerToken(req);
    if (!given || !sameSecret(given, adminToken)) throw unauthorized('Send the admin token as "Authorization: Bearer <ADMIN_TOKEN>".', 'invalid_token');
    next();
  };
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(hashSecret(a));
  const right = Buffer.from(hashSecret(b));
  return timingSafeEqual(left, right);
}
