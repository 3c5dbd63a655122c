/**
 * DNS-rebinding protection of /mcp: it answers only requests addressed to the service's own
 * names (PUBLIC_URL's host, loopback at the service's port, MCP_ALLOWED_HOSTS) and, when a
 * browser names its Origin, only from those names or MCP_ALLOWED_ORIGINS. A refusal is a 403
 * problem given before the key is checked and before the body is read. The same in both
 * protocol eras: a 2025 client's first request is `initialize`, a 2026-07-28 one's may be
 * `server/discover` (or any call) with its `_meta` and standard headers.
 */
import type { Response } from 'supertest';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { createCompany, startApp, type TestApp, type TestCompany } from '../support/app';
import { MCP_ERAS, MODERN_REVISION, connectMcp, type McpEra } from '../support/mcp';

let t: TestApp;
let co: TestCompany;
let port: string;

beforeAll(async () => {
  t = await startApp({
    PUBLIC_URL: 'https://jobs.example.com',
    MCP_ALLOWED_HOSTS: 'mcp.internal:8443, Proxy.Local',
    MCP_ALLOWED_ORIGINS: 'https://inspector.example.com',
  });
  co = await createCompany(t);
  port = new URL(t.url).port;
});

afterAll(async () => {
  await t?.close();
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'transport-test', version: '1.0.0' },
  },
};

const DISCOVER = {
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'transport-test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};

/** A client's first request in an era, as a browser (or an attacker's page) would send it. */
function opening(
  era: McpEra,
  headers: Record<string, string>,
  options: { key?: string | null; body?: string } = {},
) {
  let req = t.http
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream');
  if (era === 'modern')
    req = req.set('MCP-Protocol-Version', MODERN_REVISION).set('Mcp-Method', 'server/discover');
  if (options.key !== null) req = req.set('Authorization', `Bearer ${options.key ?? co.writeKey}`);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return req.send(options.body ?? JSON.stringify(era === 'modern' ? DISCOVER : INITIALIZE));
}

function expectRefused(res: Response, code: 'forbidden_host' | 'forbidden_origin'): void {
  expect(res.status).toBe(403);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/);
  expect(res.body).toEqual(
    expect.objectContaining({
      status: 403,
      code,
      type: `https://jms.dev/problems/${code}`,
      title: expect.any(String),
    }),
  );
  // Refused before the key: nothing was counted against it.
  expect(res.headers.ratelimit).toBeUndefined();
}

/** Answered: initialize names the server in its result, server/discover in the result's `_meta`. */
function expectAnswered(res: Response): void {
  expect(res.status).toBe(200);
  expect(res.body).toEqual(expect.objectContaining({ jsonrpc: '2.0', id: 1, result: expect.any(Object) }));
  const { result } = res.body;
  expect(result.serverInfo ?? result._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
    name: 'job-management-service',
  });
}

describe.each(MCP_ERAS)('%s era', (era) => {
  const initialize = (headers: Record<string, string>, options?: { key?: string | null; body?: string }) =>
    opening(era, headers, options);

  describe('a foreign Host or Origin is refused', () => {
    test('the dns-rebinding attack: Host and Origin of another site', async () => {
      expectRefused(
        await initialize({ Host: 'evil.example', Origin: 'http://evil.example' }),
        'forbidden_host',
      );
    });

    test('a foreign Host alone, even with a valid key', async () => {
      expectRefused(await initialize({ Host: 'evil.example' }), 'forbidden_host');
      expectRefused(await initialize({ Host: `evil.example:${port}` }), 'forbidden_host');
    });

    test('a loopback name at another port than the service', async () => {
      const other = port === '1' ? '2' : '1';
      expectRefused(await initialize({ Host: `localhost:${other}` }), 'forbidden_host');
    });

    test('before the key and before the body: no key and a broken body still get the 403', async () => {
      expectRefused(
        await initialize({ Host: 'evil.example' }, { key: null, body: '{not json' }),
        'forbidden_host',
      );
    });

    test('GET and DELETE are refused too (not a 405 that confirms the endpoint)', async () => {
      expectRefused(await t.http.get('/mcp').set('Host', 'evil.example'), 'forbidden_host');
      expectRefused(await t.http.delete('/mcp').set('Host', 'evil.example'), 'forbidden_host');
    });

    test('our own Host with a foreign Origin', async () => {
      expectRefused(
        await initialize({ Host: `127.0.0.1:${port}`, Origin: 'http://evil.example' }),
        'forbidden_origin',
      );
      expectRefused(
        await initialize({ Host: `127.0.0.1:${port}`, Origin: `http://evil.example:${port}` }),
        'forbidden_origin',
      );
    });

    test('an Origin of another local site (same name, other port), "null", or not an origin', async () => {
      const other = port === '1' ? '2' : '1';
      for (const origin of [
        `http://localhost:${other}`,
        'null',
        'file://',
        `http://127.0.0.1:${port}/path`,
      ]) {
        expectRefused(await initialize({ Host: `127.0.0.1:${port}`, Origin: origin }), 'forbidden_origin');
      }
    });
  });

  describe('the service own names work', () => {
    test('loopback names at the service port, with and without a matching Origin', async () => {
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
        expectAnswered(await initialize({ Host: host }));
        expectAnswered(await initialize({ Host: host, Origin: `http://${host}` }));
      }
    });

    test("PUBLIC_URL's host and its https origin", async () => {
      expectAnswered(await initialize({ Host: 'jobs.example.com', Origin: 'https://jobs.example.com' }));
    });

    test('hosts and origins added with MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS', async () => {
      expectAnswered(await initialize({ Host: 'mcp.internal:8443', Origin: 'https://mcp.internal:8443' }));
      expectAnswered(await initialize({ Host: 'proxy.local' }));
      expectAnswered(
        await initialize({ Host: `localhost:${port}`, Origin: 'https://inspector.example.com' }),
      );
      // An allowed origin is not an allowed Host.
      expectRefused(await initialize({ Host: 'inspector.example.com' }), 'forbidden_host');
    });

    test('the official client (no Origin) lists the tools', async () => {
      const client = await connectMcp(t, co.writeKey, { era });
      try {
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });
  });
});

describe('settings', () => {
  test('a bad MCP_ALLOWED_HOSTS or MCP_ALLOWED_ORIGINS stops the service with a message naming it', () => {
    expect(() => loadConfig({ MCP_ALLOWED_HOSTS: 'good.example,http://bad.example/' })).toThrow(ConfigError);
    expect(() => loadConfig({ MCP_ALLOWED_HOSTS: 'a b' })).toThrow(/MCP_ALLOWED_HOSTS/);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'app.example.com' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com/path' })).toThrow(
      /MCP_ALLOWED_ORIGINS/,
    );
  });

  test('lists are split on commas, blanks ignored; both default to empty', () => {
    expect(
      loadConfig({
        MCP_ALLOWED_HOSTS: ' a.example , b.example:8080,',
        MCP_ALLOWED_ORIGINS: 'https://c.example',
      }).mcp,
    ).toEqual({
      allowedHosts: ['a.example', 'b.example:8080'],
      allowedOrigins: ['https://c.example'],
    });
    expect(loadConfig({}).mcp).toEqual({ allowedHosts: [], allowedOrigins: [] });
  });
});
