/**
 * What a person approved for an assistant, and the secrets that carry it. A grant acts as its
 * person with the scope chosen on the approval page (never more than the key they proved
 * themselves with), optionally narrowed to some toolsets, for one resource (the MCP endpoint or
 * the HTTP API). Its secrets, each stored as a hash only:
 * - the authorization code: one use, 5 minutes, bound to the client, its redirect_uri and its
 *   PKCE challenge. A code used twice ends the grant and every token it led to (RFC 9700 §4.2.4);
 * - access tokens: 1 hour;
 * - refresh tokens: 30 days, rotated on each use; an old one used again revokes the grant.
 * A grant ends (`revoked_at`) when an admin revokes it, when its code or a refresh token is used
 * twice, or when the key it was approved with is revoked or rotated (endGrantsOfKey, in the key's
 * own transaction). Revocations go through changeKeys, so that every node stops the token before
 * the answer; a refresh reads the grant in the database, so no node refreshes an ended grant.
 */
import type { Knex } from 'knex';
import { InvalidGrantError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashSecret, newId, newSecret } from '../ids';
import { changeKeys } from '../key-cache';

export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;
export const CODE_SECONDS = 5 * 60;
export const REQUEST_SECONDS = 10 * 60;

export type GrantScope = 'read' | 'write';

/** An authorization waiting on the approval page. */
export interface PendingRequest {
  id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  resource: string;
  state: string | null;
}

/** Who approved, as the approval page established it. */
export interface Approver {
  companyId: string;
  personId: string;
  /** The most the approver may grant: their key's scope, or the sign-in code's. */
  maxScope: GrantScope;
  key: { id: string; secretHash: string } | null;
}

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);

export async function savePendingRequest(
  db: Knex,
  request: Omit<PendingRequest, 'id'>,
): Promise<PendingRequest> {
  const id = newSecret('ac').replace('jms_ac_', 'req_');
  await db('oauth_requests').insert({ id, ...request, expires_at: inSeconds(REQUEST_SECONDS) });
  return { id, ...request };
}

export async function findPendingRequest(db: Knex, id: string): Promise<PendingRequest | null> {
  const row = await db('oauth_requests').where({ id }).where('expires_at', '>', db.fn.now()).first();
  return (row as PendingRequest | undefined) ?? null;
}

/** The approval: the grant, and the code the client exchanges for its first tokens. */
export async function approve(
  db: Knex,
  request: PendingRequest,
  approver: Approver,
  choice: { scope: GrantScope; toolsets: string[] | null; clientName: string },
): Promise<{ code: string; grantId: string }> {
  const code = newSecret('ac');
  const grantId = newId('agr');
  await db.transaction(async (trx) => {
    const taken = await trx('oauth_requests').where({ id: request.id }).delete().returning('id');
    if (taken.length === 0) throw new InvalidGrantError('This approval was already answered.');
    await trx('oauth_grants').insert({
      id: grantId,
      company_id: approver.companyId,
      person_id: approver.personId,
      key_id: approver.key?.id ?? null,
      key_secret_hash: approver.key?.secretHash ?? null,
      client_id: request.client_id,
      client_name: choice.clientName,
      scope: choice.scope,
      toolsets: choice.toolsets ? JSON.stringify(choice.toolsets) : null,
      resource: request.resource,
    });
    await trx('oauth_codes').insert({
      code_hash: hashSecret(code),
      grant_id: grantId,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      expires_at: inSeconds(CODE_SECONDS),
    });
  });
  return { code, grantId };
}

interface CodeRow {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: GrantScope;
  expires_at: Date;
  used_at: Date | null;
}

function codeQuery(db: Knex, code: string) {
  return db('oauth_codes as c')
    .join('oauth_grants as g', 'g.id', 'c.grant_id')
    .where('c.code_hash', hashSecret(code))
    .first(
      'c.code_hash',
      'c.grant_id',
      'g.client_id',
      'c.redirect_uri',
      'c.code_challenge',
      'g.resource',
      'g.scope',
      'c.expires_at',
      'c.used_at',
    );
}

/** The PKCE challenge the code was issued with; a code that cannot be exchanged is refused here. */
export async function challengeOfCode(db: Knex, clientId: string, code: string): Promise<string> {
  const row = (await codeQuery(db, code)) as CodeRow | undefined;
  if (!row || row.client_id !== clientId)
    throw new InvalidGrantError('The authorization code is unknown or was issued to another client.');
  if (row.used_at) {
    await endGrantOnReuse(db, row.grant_id);
    throw new InvalidGrantError('The authorization code was already used; the tokens it gave are revoked.');
  }
  if (new Date(row.expires_at).getTime() <= Date.now())
    throw new InvalidGrantError('The authorization code has expired; authorize again.');
  return row.code_challenge;
}

/** The code's first tokens. The SDK has checked PKCE; this checks the rest and uses the code up. */
export async function exchangeCode(
  db: Knex,
  clientId: string,
  code: string,
  redirectUri: string | undefined,
  resource: URL | undefined,
): Promise<OAuthTokens> {
  const row = (await codeQuery(db, code)) as CodeRow | undefined;
  if (!row || row.client_id !== clientId)
    throw new InvalidGrantError('The authorization code is unknown or was issued to another client.');
  if (redirectUri !== undefined && redirectUri !== row.redirect_uri)
    throw new InvalidGrantError('redirect_uri differs from the one the code was issued for.');
  if (resource && !sameResource(resource, row.resource))
    throw new InvalidTargetError(`The code was issued for ${row.resource}.`);
  return db.transaction(async (trx) => {
    const used = await trx('oauth_codes')
      .where({ code_hash: row.code_hash })
      .whereNull('used_at')
      .where('expires_at', '>', trx.fn.now())
      .update({ used_at: trx.fn.now() })
      .returning('code_hash');
    if (used.length === 0)
      throw new InvalidGrantError('The authorization code was already used or has expired.');
    return issueTokens(trx, row.grant_id, row.code_hash, row.scope);
  });
}

const REFRESH_REFUSED = 'The refresh token is unknown, revoked, or was issued to another client.';

/** New tokens for a refresh token, which is used up; one used before ends its grant. */
export async function refresh(
  db: Knex,
  clientId: string,
  refreshToken: string,
  resource: URL | undefined,
): Promise<OAuthTokens> {
  const row = await db('oauth_tokens as t')
    .join('oauth_grants as g', 'g.id', 't.grant_id')
    .where({ 't.token_hash': hashSecret(refreshToken), 't.kind': 'refresh' })
    .first(
      't.token_hash',
      't.code_hash',
      't.expires_at',
      't.revoked_at',
      'g.id as grant_id',
      'g.client_id',
      'g.resource',
      'g.scope',
      'g.revoked_at as grant_revoked_at',
    );
  if (!row || row.client_id !== clientId || row.grant_revoked_at)
    throw new InvalidGrantError(REFRESH_REFUSED);
  if (resource && !sameResource(resource, row.resource))
    throw new InvalidTargetError(`The refresh token was issued for ${row.resource}.`);
  if (new Date(row.expires_at).getTime() <= Date.now())
    throw new InvalidGrantError('The refresh token has expired; authorize again.');
  const rotated = await db.transaction(async (trx) => {
    // Locked: a revocation of the grant or of its key meanwhile either waits for these tokens
    // (and then ends them) or is seen here.
    const standing = await trx('oauth_grants')
      .where({ id: row.grant_id })
      .whereNull('revoked_at')
      .forUpdate()
      .first('id');
    if (!standing) return 'ended' as const;
    const taken = await trx('oauth_tokens')
      .where({ token_hash: row.token_hash })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() })
      .returning('token_hash');
    return taken.length === 0
      ? ('reused' as const)
      : issueTokens(trx, row.grant_id, row.code_hash, row.scope);
  });
  if (rotated === 'ended') throw new InvalidGrantError(REFRESH_REFUSED);
  if (rotated !== 'reused') return rotated;
  await endGrantOnReuse(db, row.grant_id);
  throw new InvalidGrantError(
    'The refresh token was already used; every token of this authorization is revoked. Authorize again.',
  );
}

async function issueTokens(
  trx: Knex.Transaction,
  grantId: string,
  codeHash: string,
  scope: GrantScope,
): Promise<OAuthTokens> {
  const access = newSecret('at');
  const refreshToken = newSecret('rt');
  await trx('oauth_tokens').insert([
    {
      token_hash: hashSecret(access),
      grant_id: grantId,
      kind: 'access',
      code_hash: codeHash,
      expires_at: inSeconds(ACCESS_TOKEN_SECONDS),
    },
    {
      token_hash: hashSecret(refreshToken),
      grant_id: grantId,
      kind: 'refresh',
      code_hash: codeHash,
      expires_at: inSeconds(REFRESH_TOKEN_SECONDS),
    },
  ]);
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
    scope,
  };
}

/** RFC 7009: revokes the token given (access or refresh) of this client; an unknown one is no error. */
export async function revokeToken(db: Knex, clientId: string, token: string): Promise<void> {
  await changeKeys(db, async (trx) => {
    const row = await trx('oauth_tokens as t')
      .join('oauth_grants as g', 'g.id', 't.grant_id')
      .where('t.token_hash', hashSecret(token))
      .first('t.token_hash', 'g.client_id');
    if (row && row.client_id === clientId)
      await trx('oauth_tokens')
        .where({ token_hash: row.token_hash })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now() });
  });
}

/**
 * A code or refresh token used twice may have been stolen: the grant ends with every token it
 * issued (RFC 9700 §4.2.4, §4.14.2), and the admin's list shows it revoked.
 */
async function endGrantOnReuse(db: Knex, grantId: string): Promise<void> {
  await changeKeys(db, async (trx) => {
    await trx('oauth_grants')
      .where({ id: grantId })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() });
    await trx('oauth_tokens')
      .where({ grant_id: grantId })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() });
  });
}

/**
 * Ends the grants approved with a key, in the transaction (under changeKeys) that revokes or
 * rotates it: a rotation ends those approved with the old secret, which is every one there is.
 */
export async function endGrantsOfKey(trx: Knex.Transaction, keyId: string): Promise<void> {
  await trx('oauth_grants')
    .where({ key_id: keyId })
    .whereNull('revoked_at')
    .update({ revoked_at: trx.fn.now() });
}

/** Revokes a grant of the company; false when it has no such grant. A grant revoked before stays so. */
export async function revokeGrant(db: Knex, companyId: string, grantId: string): Promise<boolean> {
  return changeKeys(db, async (trx) => {
    const grant = await trx('oauth_grants')
      .where({ id: grantId, company_id: companyId })
      .first('id', 'revoked_at');
    if (!grant) return false;
    if (!grant.revoked_at)
      await trx('oauth_grants').where({ id: grantId }).update({ revoked_at: trx.fn.now() });
    return true;
  });
}

/** Tokens are bound to one resource: the same address, with or without a trailing slash. */
export function sameResource(given: URL | string, bound: string): boolean {
  const strip = (value: string) => value.replace(/#.*$/, '').replace(/\/$/, '');
  return strip(typeof given === 'string' ? given : given.href) === strip(bound);
}
