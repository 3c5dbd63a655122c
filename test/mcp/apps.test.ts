/**
 * MCP Apps on the endpoint, through the official client: the server declares the extension, the
 * tools with an app name it in `_meta.ui` (and no others do), resources/list names the three
 * apps, resources/read answers each page with its CSP, and an unknown URI is "resource not
 * found". A read key reads the apps too; what an app does is that key's to do.
 */
import type { Client } from '@modelcontextprotocol/client';
import { createCompany, startApp, type TestApp, type TestCompany } from '../support/app';
import { connectMcp, MCP_ERAS } from '../support/mcp';

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(async () => {
  await t?.close();
});

const APPS = {
  'ui://jobs/packet-review': ['check_claim_readiness', 'export_pdf'],
  'ui://jobs/drying-log': ['get_drying_log'],
  'ui://jobs/photos': ['list_job_photos', 'view_photos'],
};

describe.each(MCP_ERAS)('MCP Apps on /mcp (%s era)', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(t, co.readKey, { era });
  });
  afterAll(async () => {
    await client?.close();
  });

  it('declares the extension and names each tool’s app in _meta.ui, on those tools only', async () => {
    expect(client.getServerCapabilities()).toMatchObject({
      resources: {},
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
    });
    const { tools } = await client.listTools();
    const withApps = tools.filter((tool) => tool._meta !== undefined);
    expect(Object.fromEntries(withApps.map((tool) => [tool.name, tool._meta]))).toEqual(
      Object.fromEntries(
        Object.entries(APPS).flatMap(([uri, names]) =>
          names.map((name) => [name, { ui: { resourceUri: uri } }]),
        ),
      ),
    );
  });

  it('lists the apps and reads each page, with its CSP and a nonce', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual(
      Object.keys(APPS).map((uri) => [uri, 'text/html;profile=mcp-app']),
    );
    for (const uri of Object.keys(APPS)) {
      const [first] = (await client.readResource({ uri })).contents;
      const [second] = (await client.readResource({ uri })).contents;
      expect(first).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app' });
      expect(first._meta).toEqual({
        ui: {
          csp: {
            connectDomains: [],
            resourceDomains: uri === 'ui://jobs/photos' ? [new URL(t.url).origin] : [],
          },
          prefersBorder: true,
        },
      });
      const nonceOf = (content: typeof first) =>
        /nonce="([^"]+)"/.exec('text' in content ? content.text : '')![1];
      // A read makes a fresh nonce; a 2026 client keeps the page for its ttlMs (public, as it is the same for everyone), so its second read is the first.
      if (era === 'legacy') expect(nonceOf(first)).not.toBe(nonceOf(second));
      else expect(nonceOf(first)).toBe(nonceOf(second));
    }
  });

  // The 2026-07-28 revision answers a resource not found with -32602 in every era (the SDK maps its -32002).
  it('answers an unknown ui:// address as a resource not found', async () => {
    await expect(client.readResource({ uri: 'ui://jobs/nothing' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('ui://jobs/nothing'),
    });
  });
});
