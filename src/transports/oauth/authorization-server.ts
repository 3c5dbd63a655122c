/**
 * The service is its own OAuth 2.1 authorization server, for assistants that cannot send an API
 * key (MCP's authorization specification). The MCP SDK's router serves the metadata (RFC 8414,
 * RFC 9728), /authorize, /token (PKCE S256 checked by the SDK), /register (RFC 7591) and /revoke
 * (RFC 7009); this file gives it the provider (../../platform/oauth stores what it issues), the
 * approval page, and the one-time sign-in links an admin makes. Two resources take the tokens,
 * each only its own (RFC 8707): the MCP endpoint and the HTTP API.
 */
import express, { type Request, type Response, type Router } from 'express';
import { mcpAuthRouter, createOAuthMetadata } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import {
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Logger } from 'pino';
import { toolsets } from '../../generated/mcp-tools';
import { findCaller, findCallerOfToken, type ProtectedResource } from '../../platform/auth';
import { hashSecret } from '../../platform/ids';
import { ClientStore, clientNameOf, isMetadataDocumentId } from '../../platform/oauth/clients';
import {
  approve,
  challengeOfCode,
  exchangeCode,
  findPendingRequest,
  refresh,
  revokeToken,
  sameResource,
  savePendingRequest,
  type Approver,
  type GrantScope,
  type PendingRequest,
} from '../../platform/oauth/grants';
import { findSignIn, takeSignIn, type SignIn } from '../../platform/oauth/sign-ins';
import type { RateLimiter } from '../../platform/rate-limit';
import { charge } from '../shared/credentials';
import type { Deps } from '../../domain/services';
import { approvalPage } from '../pages/approval-page';
import { ERROR_PAGE_HEADERS, escapeHtml, pageHeaders, refuseCrossSite } from '../pages/page-security';

export const SCOPES: GrantScope[] = ['read', 'write'];
const SIGN_IN_COOKIE = 'jms_sign_in';
const RESOURCE_NAME = 'Job Management Service';

/** The two addresses tokens are issued for, with where each one's metadata is. */
export function protectedResources(publicUrl: string): { mcp: ProtectedResource; api: ProtectedResource } {
  const of = (path: string) => ({
    resource: `${publicUrl}${path}`,
    metadataUrl: `${publicUrl}/.well-known/oauth-protected-resource${path}`,
  });
  return { mcp: of('/mcp'), api: of('/api/v1') };
}

/** The SDK serves an issuer only on https, or on a loopback address during development. */
export function canIssue(publicUrl: string): boolean {
  const url = new URL(publicUrl);
  return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

export function authorizationServer(deps: Deps & { logger: Logger }, limiter: RateLimiter): Router {
  const router = express.Router();
  const { publicUrl } = deps.config;
  if (!canIssue(publicUrl)) {
    deps.logger.warn(
      { publicUrl },
      'OAuth for assistants is off: PUBLIC_URL must be https (or a loopback address)',
    );
    return router;
  }
  const resources = protectedResources(publicUrl);
  const clients = new ClientStore(deps.db, deps.config.oauthClientDocuments);
  const provider = new Provider(deps, clients, resources.mcp.resource, [
    resources.mcp.resource,
    resources.api.resource,
  ]);
  const issuerUrl = new URL(publicUrl);
  const metadata = {
    ...createOAuthMetadata({ provider, issuerUrl, scopesSupported: SCOPES }),
    // Every client is public and proves itself with PKCE (./platform/oauth/clients.ts).
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };

  // Each OAuth request counts against the address's share, as an API request counts against its key.
  router.use(['/authorize', '/token', '/register', '/revoke', '/oauth'], async (req, res, next) => {
    await charge(res, limiter, 'work', `oauth:${req.ip ?? 'unknown'}`, 1);
    next();
  });
  router.use('/.well-known/oauth-authorization-server', metadataHandler(metadata));
  router.use(
    '/.well-known/oauth-protected-resource/api/v1',
    metadataHandler(resourceMetadata(resources.api.resource, publicUrl)),
  );
  const noLimit = { rateLimit: false } as const;
  router.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      resourceServerUrl: new URL(resources.mcp.resource),
      scopesSupported: SCOPES,
      resourceName: RESOURCE_NAME,
      authorizationOptions: noLimit,
      tokenOptions: noLimit,
      clientRegistrationOptions: noLimit,
      revocationOptions: noLimit,
    }),
  );
  router.post(
    '/oauth/approve',
    refuseCrossSite,
    express.urlencoded({ extended: false, limit: '10kb' }),
    (req, res) => provider.answerApproval(req, res, limiter),
  );
  router.get('/oauth/sign-in', (req, res) => signInPage(deps, req, res));
  return router;
}

function resourceMetadata(resource: string, issuer: string) {
  return {
    resource,
    authorization_servers: [new URL(issuer).href],
    scopes_supported: SCOPES,
    resource_name: `${RESOURCE_NAME} HTTP API`,
    bearer_methods_supported: ['header'],
  };
}

class Provider implements OAuthServerProvider {
  constructor(
    private readonly deps: Deps,
    readonly clientsStore: ClientStore,
    private readonly defaultResource: string,
    private readonly resources: string[],
  ) {}

  /** Shows the approval page for a checked request (the SDK has checked the client and its redirect_uri). */
  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: Response,
  ): Promise<void> {
    const resource = params.resource
      ? this.resources.find((known) => sameResource(params.resource!, known))
      : this.defaultResource;
    if (!resource)
      throw new InvalidTargetError(`This server issues tokens for ${this.resources.join(' and ')} only.`);
    const unknown = (params.scopes ?? []).filter((scope) => !SCOPES.includes(scope as GrantScope));
    if (unknown.length)
      throw new InvalidScopeError(`Unknown scope ${unknown.join(' ')}: the scopes are read and write.`);
    const asked: GrantScope = params.scopes?.length && !params.scopes.includes('write') ? 'read' : 'write';
    const request = await savePendingRequest(this.deps.db, {
      client_id: client.client_id,
      redirect_uri: params.redirectUri,
      code_challenge: params.codeChallenge,
      scope: asked,
      resource,
      state: params.state ?? null,
    });
    await this.showPage(res, 200, request, client, await findSignIn(this.deps.db, cookieOf(res.req)), null);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return challengeOfCode(this.deps.db, client.client_id, code);
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ) {
    return exchangeCode(this.deps.db, client.client_id, code, redirectUri, resource);
  }

  exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    _scopes?: string[],
    resource?: URL,
  ) {
    return refresh(this.deps.db, client.client_id, refreshToken, resource);
  }

  async verifyAccessToken(token: string) {
    const caller = await findCallerOfToken(this.deps.db, token);
    if (!caller?.grant) throw new InvalidTokenError('The access token is unknown or has been revoked.');
    return {
      token,
      clientId: caller.grant.id,
      scopes: [caller.scope],
      expiresAt: Math.floor(caller.grant.expiresAt / 1000),
      resource: new URL(caller.grant.resource),
    };
  }

  revokeToken(client: OAuthClientInformationFull, request: { token: string }): Promise<void> {
    return revokeToken(this.deps.db, client.client_id, request.token);
  }

  /** The approval form: approve or deny, proven by an API key or the sign-in link's cookie. */
  async answerApproval(req: Request, res: Response, limiter: RateLimiter): Promise<void> {
    const form = req.body as {
      request?: string;
      credential?: string;
      scope?: string;
      toolsets?: string | string[];
      decision?: string;
    };
    const request =
      typeof form.request === 'string' ? await findPendingRequest(this.deps.db, form.request) : null;
    const client = request ? await this.clientsStore.getClient(request.client_id) : undefined;
    if (!request || !client) {
      sendMessagePage(res, 400, 'This approval has expired', 'Go back to your assistant and connect again.');
      return;
    }
    if (form.decision !== 'approve') {
      await this.deps.db('oauth_requests').where({ id: request.id }).delete();
      this.sendBack(res, request, { error: 'access_denied', error_description: 'The person denied access.' });
      return;
    }
    const signIn = form.credential ? null : await findSignIn(this.deps.db, cookieOf(req));
    const approver = signIn
      ? approverOfSignIn(signIn)
      : await this.approverOfKey(form.credential ?? '', req, limiter);
    const scope = form.scope === 'read' || form.scope === 'write' ? form.scope : null;
    const chosen = [form.toolsets ?? []].flat();
    const problem = !approver
      ? 'That API key is unknown or has been revoked.'
      : !scope
        ? 'Choose read, or read and change.'
        : scope === 'write' && approver.maxScope === 'read'
          ? 'That key is read-only: choose read, or approve with a write key.'
          : chosen.some((name) => !toolsets.some((set) => set.name === name))
            ? 'Choose toolsets from the list.'
            : null;
    if (problem || !approver || !scope) {
      await this.showPage(res, approver ? 403 : 401, request, client, signIn, problem);
      return;
    }
    if (signIn && !(await takeSignIn(this.deps.db, signIn.codeHash))) {
      await this.showPage(res, 401, request, client, null, 'The sign-in link was already used.');
      return;
    }
    const { code } = await approve(this.deps.db, request, approver, {
      scope,
      toolsets: chosen.length ? chosen : null,
      clientName: clientNameOf(client),
    });
    this.sendBack(res, request, { code });
  }

  private async approverOfKey(key: string, req: Request, limiter: RateLimiter): Promise<Approver | null> {
    const address = req.ip ?? 'unknown';
    await limiter.refuseFailingAddress(address);
    const caller = key ? await findCaller(this.deps.db, key.trim()) : null;
    if (!caller) {
      await limiter.countFailure(address);
      return null;
    }
    return {
      companyId: caller.companyId,
      personId: caller.personId,
      maxScope: caller.scope,
      key: { id: caller.keyId, secretHash: hashSecret(key.trim()) },
    };
  }

  /** Back to the client's redirect_uri with the answer, its state and who issued it (RFC 9207). */
  private sendBack(res: Response, request: PendingRequest, answer: Record<string, string>): void {
    const target = new URL(request.redirect_uri);
    for (const [name, value] of Object.entries(answer)) target.searchParams.set(name, value);
    if (request.state !== null) target.searchParams.set('state', request.state);
    target.searchParams.set('iss', new URL(this.deps.config.publicUrl).href);
    res.redirect(303, target.href);
  }

  private async showPage(
    res: Response,
    status: number,
    request: PendingRequest,
    client: OAuthClientInformationFull,
    signIn: SignIn | null,
    problem: string | null,
  ): Promise<void> {
    const page = approvalPage({
      requestId: request.id,
      clientName: clientNameOf(client),
      clientOrigin: isMetadataDocumentId(client.client_id)
        ? new URL(client.client_id).host
        : 'registered by the assistant itself',
      redirectHost: new URL(request.redirect_uri).host,
      resourceName: request.resource.endsWith('/mcp') ? RESOURCE_NAME : `the ${RESOURCE_NAME} HTTP API`,
      askedScope: request.scope === 'read' ? 'read' : 'write',
      toolsets: toolsets.map(({ name, description }) => ({ name, description })),
      signedIn: signIn
        ? { personName: signIn.personName, companyName: signIn.companyName, scope: signIn.scope }
        : null,
      problem,
    });
    // The form's answer sends the browser on to the client: its origin is a form target too.
    res
      .status(status)
      .type('html')
      .set(pageHeaders(page.nonce, [new URL(request.redirect_uri).origin]))
      .send(page.html);
  }
}

function approverOfSignIn(signIn: SignIn): Approver {
  return { companyId: signIn.companyId, personId: signIn.personId, maxScope: signIn.scope, key: null };
}

function cookieOf(req: Request): string | null {
  const match = /(?:^|;\s*)jms_sign_in=([\w]+)/.exec(req.headers.cookie ?? '');
  return match ? match[1] : null;
}

/** Opening an admin's sign-in link signs this browser in for approving an assistant, until the link expires or is used. */
async function signInPage(deps: Deps, req: Request, res: Response): Promise<void> {
  const code = typeof req.query.code === 'string' ? req.query.code : '';
  const signIn = await findSignIn(deps.db, code);
  if (!signIn) {
    sendMessagePage(
      res,
      400,
      'This sign-in link does not work',
      'It has expired or was already used. Ask your admin for a new one.',
    );
    return;
  }
  const secure = new URL(deps.config.publicUrl).protocol === 'https:';
  const maxAge = Math.max(1, Math.floor((signIn.expiresAt.getTime() - Date.now()) / 1000));
  res.setHeader(
    'Set-Cookie',
    `${SIGN_IN_COOKIE}=${code}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
  sendMessagePage(
    res,
    200,
    `Signed in as ${signIn.personName}`,
    `Of ${signIn.companyName}, until the link is used or expires. Go back to the approval page your assistant opened and reload it, or connect the assistant now.`,
  );
}

function sendMessagePage(res: Response, status: number, title: string, text: string): void {
  res
    .status(status)
    .type('html')
    .set(ERROR_PAGE_HEADERS)
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:560px;margin:0 auto;padding:16px"><h1 style="font-size:1.3rem">${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`,
    );
}
