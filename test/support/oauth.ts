/**
 * An OAuth client's steps against a test app, by hand (HTTP): register, authorize, approve on
 * the approval page's form, exchange the code, refresh. The browser and SDK client tests drive
 * the same flow end to end; these helpers let the HTTP tests reach each step's edge cases.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from './app';

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A client's PKCE pair (RFC 7636, S256), as a client library makes it. */
export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'http://127.0.0.1:7777/callback';

/** Dynamic registration (RFC 7591) of a client with one redirect_uri. */
export async function registerClient(
  t: TestApp,
  name = 'Test Assistant',
  redirectUri = REDIRECT_URI,
): Promise<string> {
  const res = await t.http
    .post('/register')
    .send({
      client_name: name,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    })
    .expect(201);
  return res.body.client_id as string;
}

export interface AuthorizeOptions {
  clientId: string;
  pkce: Pkce;
  redirectUri?: string;
  scope?: string;
  resource?: string;
  state?: string;
}

export function authorizeQuery(t: TestApp, options: AuthorizeOptions): Record<string, string> {
  return {
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    code_challenge: options.pkce.challenge,
    code_challenge_method: 'S256',
    state: options.state ?? 'state-123',
    scope: options.scope ?? 'read write',
    resource: options.resource ?? `${t.url}/mcp`,
  };
}

/** Opens the approval page; answers the page's request id. */
export async function openApproval(t: TestApp, options: AuthorizeOptions, cookie?: string): Promise<string> {
  const page = t.http.get('/authorize').query(authorizeQuery(t, options));
  if (cookie) page.set('Cookie', cookie);
  const res = await page.expect(200);
  const id = /name="request" value="([^"]+)"/.exec(res.text)?.[1];
  if (!id) throw new Error(`no approval form in: ${res.text.slice(0, 300)}`);
  return id;
}

/** Posts the approval form as a browser would; answers the response (303 back to the client, or the page again). */
export function answerApproval(
  t: TestApp,
  form: { request: string; credential?: string; scope?: string; toolsets?: string[]; decision?: string },
  cookie?: string,
) {
  const body = new URLSearchParams();
  body.set('request', form.request);
  if (form.credential !== undefined) body.set('credential', form.credential);
  body.set('scope', form.scope ?? 'write');
  for (const set of form.toolsets ?? []) body.append('toolsets', set);
  body.set('decision', form.decision ?? 'approve');
  const post = t.http.post('/oauth/approve').type('form').send(body.toString());
  if (cookie) post.set('Cookie', cookie);
  return post;
}

/** The code (and the rest) from where the approval sent the browser. */
export function redirectParams(location: string | undefined): URLSearchParams {
  if (!location) throw new Error('no Location');
  return new URL(location).searchParams;
}

export function exchange(t: TestApp, form: Record<string, string>) {
  return t.http.post('/token').type('form').send(new URLSearchParams(form).toString());
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

/** Every step with a key: registered client, approval, code exchange. */
export async function tokensFor(
  t: TestApp,
  key: string,
  options: Partial<AuthorizeOptions> & {
    chosenScope?: string;
    toolsets?: string[];
    clientName?: string;
  } = {},
): Promise<Tokens & { clientId: string }> {
  const clientId = options.clientId ?? (await registerClient(t, options.clientName));
  const pkce = options.pkce ?? newPkce();
  const request = await openApproval(t, { ...options, clientId, pkce });
  const approved = await answerApproval(t, {
    request,
    credential: key,
    scope: options.chosenScope ?? 'write',
    toolsets: options.toolsets,
  }).expect(303);
  const code = redirectParams(approved.headers.location).get('code')!;
  const res = await exchange(t, {
    grant_type: 'authorization_code',
    code,
    code_verifier: pkce.verifier,
    client_id: clientId,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    resource: options.resource ?? `${t.url}/mcp`,
  }).expect(200);
  return { ...(res.body as Tokens), clientId };
}

/** One JSON-RPC request to /mcp with a bearer credential. */
export function mcpCall(t: TestApp, bearer: string, method: string, params: Record<string, unknown> = {}) {
  return t.http
    .post('/mcp')
    .set('Authorization', `Bearer ${bearer}`)
    .set('Accept', 'application/json, text/event-stream')
    .set('MCP-Protocol-Version', '2025-06-18')
    .send({ jsonrpc: '2.0', id: 1, method, params });
}
