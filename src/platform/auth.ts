/**
 * Authentication. API keys (`Authorization: Bearer jms_…`) and assistants' access tokens
 * (`jms_at_…`, ./oauth/grants.ts) for /api/v1 and /mcp resolve to a Caller; the admin token
 * guards /admin/v1. A missing, unknown or revoked key or token is a 401 with `WWW-Authenticate: Bearer`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError } from './errors';
import { hashSecret } from './ids';
import { callerOfKey, isRememberedKey, isStandingSecret, standingSecrets } from './key-cache';
import type { RateLimiter, RateLimitHeaders } from './rate-limit';
import type { Caller } from './caller';
import { sameResource } from './oauth/grants';

const LAST_USED_RESOLUTION_MS = 60_000;
/** What newApiKey makes: anything else cannot be a key, and is refused without a look-up. */
const KEY_FORMAT = /^jms_[0-9A-Za-z]{40}$/;
/** An assistant's access token (newSecret('at')). */
const TOKEN_FORMAT = /^jms_at_[0-9A-Za-z]{43}$/;

/**
 * RFC 6750: the header's quoted values may not hold quotes or backslashes. A protected resource's
 * 401 also names its metadata (RFC 9728) and the scope that connects.
 */
function unauthorized(
  detail: string,
  error: 'invalid_request' | 'invalid_token',
  protectedResource?: ProtectedResource,
): ApiError {
  const description = detail.replace(/["\\]/g, "'");
  const discovery = protectedResource
    ? `, resource_metadata="${protectedResource.metadataUrl}", scope="read write"`
    : '';
  return new ApiError(401, 'unauthorized', detail, {
    headers: {
      'WWW-Authenticate': `Bearer realm="jms", error="${error}", error_description="${description}"${discovery}`,
    },
  });
}

export async function findCaller(db: Knex, key: string): Promise<Caller | null> {
  return callerWhere(db, { 'k.secret_hash': hashSecret(key) });
}

/**
 * The caller a key id acts as, while the key is not revoked: for links a key made (the upload
 * page). A link an assistant made through its grant works while the grant stands.
 */
export async function findCallerOfKeyId(db: Knex, keyId: string): Promise<Caller | null> {
  if (keyId.startsWith('agr_')) return grantCallerWhere(db, { 'g.id': keyId }, Number.POSITIVE_INFINITY);
  return callerWhere(db, { 'k.id': keyId });
}

/** The caller an access token acts as: its grant's person and scope, while the token, the grant and the key it was approved with stand. */
export async function findCallerOfToken(db: Knex, token: string): Promise<Caller | null> {
  const row = await db('oauth_tokens')
    .where({ token_hash: hashSecret(token), kind: 'access' })
    .whereNull('revoked_at')
    .first('grant_id', 'expires_at');
  return row ? grantCallerWhere(db, { 'g.id': row.grant_id }, new Date(row.expires_at).getTime()) : null;
}

async function grantCallerWhere(
  db: Knex,
  where: Record<string, string>,
  expiresAt: number,
): Promise<Caller | null> {
  const row = await db('oauth_grants as g')
    .join('people as p', 'p.id', 'g.person_id')
    .join('companies as c', 'c.id', 'g.company_id')
    .leftJoin('api_keys as k', 'k.id', 'g.key_id')
    .where(where)
    .whereNull('g.revoked_at')
    // Approved with a key: only while that key stands with the secret it had (a rotation ends it).
    .where((q) =>
      q
        .whereNull('g.key_id')
        .orWhere((k) => k.whereNull('k.revoked_at').whereRaw('k.secret_hash = g.key_secret_hash')),
    )
    .first(
      'g.id as grant_id',
      'g.scope',
      'g.client_name',
      'g.toolsets',
      'g.resource',
      'g.last_used_at',
      'p.id as person_id',
      'p.name as person_name',
      'p.role as person_role',
      'c.id as company_id',
      'c.name as company_name',
      'c.timezone',
      'c.chat_webhook_url',
      'c.chat_new_note',
    );
  if (!row) return null;
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
    await db('oauth_grants').where({ id: row.grant_id }).update({ last_used_at: db.fn.now() });
  }
  const toolsets =
    typeof row.toolsets === 'string'
      ? (JSON.parse(row.toolsets) as string[])
      : (row.toolsets as string[] | null);
  return {
    ...callerOfRow({ ...row, key_id: row.grant_id, prefix: row.grant_id }),
    grant: { id: row.grant_id, clientName: row.client_name, toolsets, resource: row.resource, expiresAt },
  };
}

async function callerWhere(db: Knex, where: Record<string, string>): Promise<Caller | null> {
  const row = await db('api_keys as k')
    .join('people as p', 'p.id', 'k.person_id')
    .join('companies as c', 'c.id', 'k.company_id')
    .where(where)
    .whereNull('k.revoked_at')
    .first(
      'k.id as key_id',
      'k.prefix',
      'k.scope',
      'k.last_used_at',
      'p.id as person_id',
      'p.name as person_name',
      'p.role as person_role',
      'c.id as company_id',
      'c.name as company_name',
      'c.timezone',
      'c.chat_webhook_url',
      'c.chat_new_note',
    );
  if (!row) return null;
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
    await db('api_keys').where({ id: row.key_id }).update({ last_used_at: db.fn.now() });
  }
  return callerOfRow(row);
}

interface CallerRow {
  key_id: string;
  prefix: string;
  scope: 'read' | 'write';
  person_id: string;
  person_name: string;
  person_role: string;
  company_id: string;
  company_name: string;
  timezone: string;
  chat_webhook_url: string | null;
  chat_new_note: boolean;
}

function callerOfRow(row: CallerRow): Caller {
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

/** What a route protects: its address as a token's resource (RFC 8707), and where its metadata is (RFC 9728). */
export interface ProtectedResource {
  resource: string;
  metadataUrl: string;
}

/**
 * The caller of a bearer secret: a valid API key, or an assistant's access token issued for this
 * resource. `secret` is null when none was sent; `address` is the client's. Failures count
 * against the address; an address over its limit is refused before an unknown key is looked up.
 * A 401 names the resource's metadata, from which an OAuth client finds the authorization server.
 */
export async function authenticate(
  db: Knex,
  limiter: RateLimiter,
  protectedResource: ProtectedResource,
  secret: string | null,
  address: string,
): Promise<Caller> {
  const refuse = (detail: string, error: 'invalid_request' | 'invalid_token') =>
    unauthorized(detail, error, protectedResource);
  if (!secret) {
    await limiter.countFailure(address);
    throw refuse(
      'Send an API key as "Authorization: Bearer <key>", or authorize with OAuth (see the resource metadata).',
      'invalid_request',
    );
  }
  const hash = hashSecret(secret);
  const isToken = TOKEN_FORMAT.test(secret);
  const find = isToken ? () => findCallerOfToken(db, secret) : () => findCaller(db, secret);
  const caller = KEY_FORMAT.test(secret) || isToken ? await lookUp(db, hash, find, limiter, address) : null;
  if (!caller) {
    await limiter.countFailure(address);
    throw refuse(
      isToken
        ? 'The access token is unknown or has been revoked.'
        : 'The API key is unknown or has been revoked.',
      'invalid_token',
    );
  }
  if (caller.grant && !sameResource(caller.grant.resource, protectedResource.resource)) {
    throw refuse(
      `The access token was issued for ${caller.grant.resource}, not for this resource (${protectedResource.resource}).`,
      'invalid_token',
    );
  }
  if (caller.grant && caller.grant.expiresAt <= Date.now())
    throw refuse('The access token has expired; refresh it.', 'invalid_token');
  return caller;
}

/**
 * Whether the secret a long request was let in with still stands (a subscription stream asks
 * every few seconds): the key or token is not revoked, nor its grant or the key that approved the
 * grant, and a token has not expired. Remembered keys are forgotten on every node at a revocation
 * (./key-cache), so a revoked secret is seen at the next check.
 */
export async function secretStands(db: Knex, secret: string): Promise<boolean> {
  const isToken = TOKEN_FORMAT.test(secret);
  if (!isToken && !KEY_FORMAT.test(secret)) return false;
  const find = isToken ? () => findCallerOfToken(db, secret) : () => findCaller(db, secret);
  const caller = await callerOfKey(hashSecret(secret), find);
  return caller !== null && (!caller.grant || caller.grant.expiresAt > Date.now());
}

/**
 * Looks a well-formed key or token up. From an address over its failed-authentication budget,
 * only a secret this node remembers or one that stands is: a valid key is answered whatever other
 * clients at its address did, and an unknown or revoked one is refused without a look-up.
 */
async function lookUp(
  db: Knex,
  hash: string,
  find: () => Promise<Caller | null>,
  limiter: RateLimiter,
  address: string,
): Promise<Caller | null> {
  if (!isRememberedKey(hash) && (await limiter.isFailing(address)) && !(await isStandingSecret(db, hash)))
    limiter.refuseFailures();
  const caller = await callerOfKey(hash, find);
  // An unknown key: the standing secrets are loaded now if out of date, so that once its address
  // is over its budget, telling a valid key from a guess costs no query.
  if (!caller) await standingSecrets(db);
  return caller;
}

/**
 * The admin API answers 404 when no ADMIN_TOKEN is configured, 401 for a wrong token (counted
 * against the address, as for keys), and has a rate limit of its own: the headers of its answer.
 */
export async function authenticateAdmin(
  adminToken: string | undefined,
  limiter: RateLimiter,
  given: string | null,
  address: string,
): Promise<RateLimitHeaders> {
  if (!adminToken)
    throw new ApiError(404, 'admin_api_disabled', 'The admin API is off: set ADMIN_TOKEN to turn it on.');
  if (!given || !sameSecret(given, adminToken)) {
    await limiter.countFailure(address);
    throw unauthorized('Send the admin token as "Authorization: Bearer <ADMIN_TOKEN>".', 'invalid_token');
  }
  return limiter.charge('admin', 'admin', 1);
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(hashSecret(a));
  const right = Buffer.from(hashSecret(b));
  return timingSafeEqual(left, right);
}
