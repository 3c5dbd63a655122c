/**
 * End to end, as an assistant connects: the MCP SDK's own client with its OAuth provider meets a
 * 401, discovers the resource and authorization server metadata, identifies itself (by a Client
 * ID Metadata Document this test serves over https, or by dynamic registration), sends the person
 * to the approval page, which a real Chromium fills in at a phone's size and a desktop's, checks
 * the callback's issuer and trades the code with PKCE, lists tools and writes as the person, refreshes, and loses access when the
 * grant is revoked. Screenshots of the approval page go to test/artifacts/.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import {
  StreamableHTTPClientTransport,
  type Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { ADMIN_TOKEN, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { describeInBrowser, launchChromium, phoneContext } from '../support/browser';
import { newMcpClient } from '../support/mcp';

const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

/** What an assistant keeps between steps: its client identity, its PKCE verifier and its tokens. */
class AssistantProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  private client: OAuthClientInformationMixed | undefined;
  private verifier = '';
  private saved: OAuthTokens | undefined;

  constructor(
    private readonly callbackUrl: string,
    private readonly name: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return this.callbackUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

/** The assistant's redirect_uri: a local page that keeps the code it is sent. */
async function startCallback(): Promise<{ url: string; server: Server; codes: URLSearchParams[] }> {
  const codes: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    codes.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, server, codes };
}

/** A self-signed certificate for 127.0.0.1, made with openssl, for the metadata document's https server. */
async function selfSignedCertificate(dir: string): Promise<{ key: string; cert: string; certFile: string }> {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), certFile };
}

describeInBrowser('an assistant connects with OAuth, through the approval page in Chromium', () => {
  let dir: string;
  let t: TestApp;
  let co: TestCompany;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let documentServer: Server;
  let documentUrl: string;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    dir = await mkdtemp(path.join(tmpdir(), 'jms-oauth-'));
    const { key, cert, certFile } = await selfSignedCertificate(dir);
    callback = await startCallback();
    documentServer = createHttpsServer({ key, cert }, (req, res) => {
      if (req.url !== '/assistant/client.json') return void res.writeHead(404).end();
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          client_id: documentUrl,
          client_name: 'Desk Assistant',
          redirect_uris: [callback.url],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
    documentUrl = `https://127.0.0.1:${(documentServer.address() as AddressInfo).port}/assistant/client.json`;
    const launching = launchChromium();
    launching.catch(() => undefined);
    t = await startApp({
      OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE: 'true',
      OAUTH_CLIENT_DOCUMENTS_CA_FILE: certFile,
    });
    co = await createCompany(t);
    browser = await launching;
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    callback?.server.close();
    documentServer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Connects until the SDK asks for the person's approval; answers the approval page's address. */
  async function firstConnect(provider: AssistantProvider): Promise<URL> {
    const client = newMcpClient();
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider })),
    ).rejects.toThrow(/Unauthorized/);
    expect(provider.authorizationUrl).not.toBeNull();
    return provider.authorizationUrl!;
  }

  /** The person approves in the browser; answers what the assistant's callback received (code, iss). */
  async function approveIn(context: BrowserContext, url: URL, shot: string): Promise<URLSearchParams> {
    const page = await context.newPage();
    await page.goto(url.href);
    await page.screenshot({ path: path.join(ARTIFACTS, `${shot}.png`), fullPage: true });
    await page.fill('#key', co.writeKey);
    await page.check('input[value="write"]');
    const before = callback.codes.length;
    await Promise.all([
      page.waitForURL((target) => target.href.startsWith(callback.url)),
      page.click('#approve'),
    ]);
    await page.close();
    const params = callback.codes[before];
    expect(params.get('iss')).toBe(`${t.url}/`);
    expect(params.get('code')).toEqual(expect.any(String));
    return params;
  }

  async function connected(provider: AssistantProvider): Promise<Client> {
    const client = newMcpClient();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider }),
    );
    return client;
  }

  it('with a Client ID Metadata Document, on a phone: approve, list, write, refresh, then revoked', async () => {
    const provider = new AssistantProvider(callback.url, 'Desk Assistant', documentUrl);
    const url = await firstConnect(provider);
    expect(url.searchParams.get('client_id')).toBe(documentUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(`${t.url}/mcp`);
    const phone = await phoneContext(browser);
    const callbackParams = await approveIn(phone, url, 'approval-page-phone');
    await phone.close();

    const finishing = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider });
    await finishing.finishAuth(callbackParams);
    const client = await connected(provider);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('create_job');
    const created = await client.callTool({
      name: 'create_job',
      arguments: { operation_id: opId(), customer_name: 'Assistant Ada' },
    });
    expect(created.isError).toBeFalsy();
    expect((created.structuredContent as { created_by: { name: string } }).created_by.name).toBe(
      co.people[0].name,
    );

    // The access token expires: the client refreshes with its refresh token, and goes on.
    const firstRefresh = provider.tokens()!.refresh_token;
    await t
      .db('oauth_tokens')
      .where({ kind: 'access' })
      .update({ expires_at: new Date(Date.now() - 1000) });
    await new Promise((resolve) => setTimeout(resolve, 5_100)); // past the node's memory of the token
    const after = await client.callTool({ name: 'get_context', arguments: {} });
    expect(after.isError).toBeFalsy();
    expect(provider.tokens()!.refresh_token).not.toBe(firstRefresh);

    // Revoked by the admin: the next call fails, and refreshing cannot bring it back.
    const grants = (
      await t.http
        .get(`/admin/v1/companies/${co.id}/assistant-grants`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .expect(200)
    ).body.data;
    const grant = grants.find((g: { client: { id: string } }) => g.client.id === documentUrl);
    expect(grant.client.name).toBe('Desk Assistant');
    await t.http
      .delete(`/admin/v1/companies/${co.id}/assistant-grants/${grant.id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(204);
    await expect(client.callTool({ name: 'get_context', arguments: {} })).rejects.toThrow();
    await client.close();
  }, 60_000);

  it('with dynamic registration, on a desktop: the same flow', async () => {
    const provider = new AssistantProvider(callback.url, 'Registered Helper');
    const url = await firstConnect(provider);
    expect(provider.clientInformation()?.client_id).toMatch(/^[0-9a-f-]{36}$/);
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const callbackParams = await approveIn(desktop, url, 'approval-page-desktop');
    await desktop.close();
    await new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider }).finishAuth(
      callbackParams,
    );
    const client = await connected(provider);
    const note = await client.callTool({ name: 'list_team', arguments: {} });
    expect(note.isError).toBeFalsy();
    await client.close();
  }, 60_000);

  it('the approval page carries the same frame and CSP headers as the other pages', async () => {
    const provider = new AssistantProvider(callback.url, 'Header Check');
    const url = await firstConnect(provider);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    // Within the site only: a form's POST then carries its Origin (under no-referrer it would be null).
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`form-action 'self' ${new URL(callback.url).origin}`);
    expect(csp).toContain("default-src 'none'");
  });
});
