/**
 * The MCP Apps' documents, without a server: everything inline carries the read's nonce, the
 * policy allows nothing else (no outside script, style, frame or connection; pictures only from
 * the service), each read has a fresh nonce, and the tools name their apps.
 */
import { appPolicy, exportsOf } from '../../src/transports/mcp/apps/app-shell';
import { APPS_EXTENSION, APPS_EXTENSION_ID, mcpApps, toolUiMeta } from '../../src/transports/mcp/apps';

const SERVICE = 'https://jobs.example.com';
const apps = mcpApps(`${SERVICE}/`);

describe('MCP Apps', () => {
  it('reads the names the ext-apps build exports', () => {
    const { body, locals } = exportsOf('var a=1;class qB{}\nexport{a as LATEST,qB as App,zz};\n');
    expect(body).toBe('var a=1;class qB{}\n');
    expect([...locals]).toEqual([
      ['LATEST', 'a'],
      ['App', 'qB'],
      ['zz', 'zz'],
    ]);
    expect(() => exportsOf('var a=1;')).toThrow(/export statement/);
  });

  it('serves three ui:// apps of the extension MIME type, linked from their tools', () => {
    expect(apps.map((app) => [app.uri, app.toolNames])).toEqual([
      ['ui://jobs/packet-review', ['check_claim_readiness', 'export_pdf']],
      ['ui://jobs/drying-log', ['get_drying_log']],
      ['ui://jobs/photos', ['view_photos', 'list_job_photos']],
    ]);
    for (const app of apps) {
      expect(app.mimeType).toBe('text/html;profile=mcp-app');
      for (const tool of app.toolNames) expect(toolUiMeta(tool)).toEqual({ resourceUri: app.uri });
    }
    expect(toolUiMeta('get_job')).toBeUndefined();
    expect(APPS_EXTENSION_ID).toBe('io.modelcontextprotocol/ui');
    expect(APPS_EXTENSION).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
  });

  describe.each(apps.map((app) => [app.name, app] as const))('%s', (name, app) => {
    const [content] = app.read().contents;
    const html = content.text;
    const nonce = /<script type="module" nonce="([^"]+)">/.exec(html)![1];

    it('declares its CSP: no connection, pictures only from the service (photos)', () => {
      expect(content.uri).toBe(app.uri);
      expect(content.mimeType).toBe('text/html;profile=mcp-app');
      expect(content._meta.ui.csp).toEqual({
        connectDomains: [],
        resourceDomains: name === 'photos' ? [SERVICE] : [],
      });
      const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1];
      expect(meta).toBe(appPolicy(nonce, name === 'photos' ? [SERVICE] : []));
      expect(meta).toContain("default-src 'none'");
      expect(meta).toContain("connect-src 'none'");
    });

    it('has no script or style without the nonce, and loads nothing from outside', () => {
      const tags = [...html.matchAll(/<(script|style)\b([^>]*)>/gi)];
      expect(tags.map((tag) => tag[1])).toEqual(['style', 'script']);
      for (const tag of tags) expect(tag[2]).toContain(`nonce="${nonce}"`);
      // The markup (the script aside): no inline handler or style attribute, no src, href or link.
      const markup = html.replace(/<script[^>]*>[\s\S]*?<\/script>/i, '');
      expect(markup).not.toMatch(/\son[a-z]+=|\sstyle=|\ssrc=|\shref=|<link\b|<iframe\b|@import|url\(/i);
      expect(html.match(/<\/script>/gi)).toHaveLength(1);
    });

    it('makes a fresh nonce for each read', () => {
      const again = app.read().contents[0].text;
      expect(again).not.toContain(nonce);
    });
  });
});
