/**
 * A host for MCP Apps in Chromium, as a chat client is one: the page reads an app's `ui://`
 * resource from the real service over MCP (the official client, on the Node side), shows it in a
 * sandboxed frame (scripts only, an opaque origin) under the CSP the resource declares, and
 * connects the ext-apps SDK's own AppBridge to it (bundled here for the browser with esbuild).
 * The app's tool calls go to the service over MCP; its link requests are recorded, not opened.
 */
import path from 'node:path';
import { build } from 'esbuild';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';

const ROOT = path.join(__dirname, '..', '..');

/** The AppBridge and its transport as one browser script, setting `window.ExtAppsHost`. */
async function bridgeBundle(): Promise<string> {
  const built = await build({
    stdin: {
      contents:
        "import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';\nwindow.ExtAppsHost = { AppBridge, PostMessageTransport };\n",
      resolveDir: ROOT,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  return built.outputFiles[0].text;
}

/** The host page's own script: mounts an app, hands it the tool's input and result, forwards its requests. */
const HOST_SCRIPT = `
window.mountApp = async function (resource, toolInput, toolResult) {
  const { AppBridge, PostMessageTransport } = window.ExtAppsHost;
  document.getElementById('app')?.remove();
  const csp = (resource._meta && resource._meta.ui && resource._meta.ui.csp) || {};
  const sources = (csp.resourceDomains || []).join(' ');
  // The policy a host builds from the declared domains (scripts and styles inline, as the sandbox serves them).
  const policy = "default-src 'none'; script-src 'unsafe-inline' " + sources + "; style-src 'unsafe-inline' " + sources +
    "; img-src data: " + sources + "; connect-src " + ((csp.connectDomains || []).join(' ') || "'none'") + "; frame-src 'none'";
  const html = resource.text.replace('<head>', '<head><meta http-equiv="Content-Security-Policy" content="' + policy + '">');
  const frame = document.createElement('iframe');
  frame.id = 'app';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'MCP App';
  frame.srcdoc = html;
  document.getElementById('chat').append(frame);
  // The bridge listens before the app's script runs: the frame's window (a proxy that outlives
  // the navigation to the srcdoc) is known once the frame is in the page.
  const bridge = new AppBridge(null, { name: 'jms-test-host', version: '1.0.0' }, { openLinks: {}, serverTools: {} }, {
    hostContext: { theme: 'light', displayMode: 'inline', platform: window.innerWidth < 600 ? 'mobile' : 'desktop' },
  });
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onopenlink = async (params) => { await window.hostOpenLink(params.url); return {}; };
  bridge.onsizechange = ({ height }) => { if (height) frame.style.height = Math.ceil(height) + 'px'; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await Promise.race([initialized, new Promise((_, reject) => setTimeout(() => reject(new Error('The app did not initialize within 20 s.')), 20000))]);
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
  window.appBridge = bridge;
};
`;

const HOST_CSS =
  'body{margin:0;font-family:system-ui,sans-serif;background:#eef0f3}#chat{padding:8px}' +
  '.bubble{background:#fff;border-radius:12px;padding:8px 12px;margin-bottom:8px;color:#333}' +
  'iframe{display:block;width:100%;height:300px;border:1px solid #d0d4da;border-radius:12px;background:#fff}';

export interface AppHost {
  /** Every tools/call the app made, in order. */
  calls: { name: string; arguments: Record<string, unknown> }[];
  /** Every link the app asked the host to open. */
  links: string[];
  /** Shows the app of `uri` for a tool call the assistant made. */
  mount(uri: string, toolInput: Record<string, unknown>, toolResult: CallToolResult): Promise<void>;
  /** Shows a resource as read (or altered by a test). */
  mountResource(
    resource: unknown,
    toolInput: Record<string, unknown>,
    toolResult: CallToolResult,
  ): Promise<void>;
}

/** Makes `page` a host talking to the service through `client`. */
export async function hostPage(page: Page, client: Client): Promise<AppHost> {
  const host: AppHost = {
    calls: [],
    links: [],
    mount: async () => undefined,
    mountResource: async () => undefined,
  };
  await page.exposeFunction(
    'hostCallTool',
    async (params: { name: string; arguments?: Record<string, unknown> }) => {
      host.calls.push({ name: params.name, arguments: params.arguments ?? {} });
      return client.callTool({ name: params.name, arguments: params.arguments ?? {} });
    },
  );
  await page.exposeFunction('hostOpenLink', async (url: string) => {
    host.links.push(url);
  });
  const bundle = await bridgeBundle();
  await page.setContent(
    `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><style>${HOST_CSS}</style></head>` +
      `<body><div id="chat"><div class="bubble">Assistant: here it is.</div></div><script>${bundle}</script><script>${HOST_SCRIPT}</script></body></html>`,
  );
  host.mountResource = async (resource, toolInput, toolResult) => {
    await page.evaluate(
      ([r, i, t]) =>
        (window as unknown as { mountApp: (...a: unknown[]) => Promise<void> }).mountApp(r, i, t),
      [resource, toolInput, toolResult] as const,
    );
  };
  host.mount = async (uri, toolInput, toolResult) => {
    const read = await client.readResource({ uri });
    await host.mountResource(read.contents[0], toolInput, toolResult);
  };
  return host;
}
