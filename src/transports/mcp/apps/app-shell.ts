/**
 * The HTML of an MCP App (io.modelcontextprotocol/ui): one document with everything inline, so
 * that the host's sandboxed frame loads nothing from anywhere. Its script is the ext-apps SDK's
 * own single-file build (`app-with-deps`, the `App` class and its dependencies) followed by the
 * app's page script (a `*.page.js` file beside this one, read once), both in one module script
 * carrying a nonce made for this read; its style carries the same nonce. The CSP is declared
 * twice: in the resource's `_meta.ui.csp` (the host builds its frame's policy from it) and in a
 * meta tag, which holds even where a host is more generous.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { escapeHtml } from '../../pages/page-security';

/** The MIME type of an app's HTML, as the extension names it (ext-apps' RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The `export{…}` statement that ends the SDK's ES module build: each exported name and the local it stands for. */
export function exportsOf(moduleText: string): { body: string; locals: Map<string, string> } {
  const match = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(moduleText);
  if (!match) throw new Error('The ext-apps module build does not end with an export statement.');
  const locals = new Map<string, string>();
  for (const item of match[1].split(',')) {
    const [local, exported] = item.trim().split(/\s+as\s+/);
    if (local) locals.set(exported ?? local, local);
  }
  return { body: moduleText.slice(0, match.index), locals };
}

/**
 * The SDK's module without its export statement, and an expression for its `App` class: a page
 * script is then wrapped in a function taking `App`, so that its names never meet the SDK's
 * (minified) ones.
 */
function loadSdk(): { body: string; app: string } {
  const file = require.resolve('@modelcontextprotocol/ext-apps/app-with-deps');
  const { body, locals } = exportsOf(readFileSync(file, 'utf8'));
  const app = locals.get('App');
  if (!app) throw new Error(`${file} exports no App.`);
  return { body, app };
}

let sdk: { body: string; app: string } | null = null;

/** A page script beside this file (statements using `App`), after the helpers every app shares (page-kit.js). */
export function pageScript(fileName: string): string {
  const read = (name: string) => readFileSync(path.join(__dirname, name), 'utf8');
  return `${read('page-kit.js')}\n${read(fileName)}`;
}

export interface AppPage {
  title: string;
  /** The app's own style rules, after the shared ones. */
  css: string;
  /** The markup of the body before the script runs. */
  body: string;
  /** The page script's text (pageScript()). */
  script: string;
  /** Origins the page may load images from (the service's own, for its signed photo links). */
  imageOrigins?: string[];
}

/** The policy of an app's document: nothing but its own nonce'd script and style, pictures from `imageOrigins`. */
export function appPolicy(nonce: string, imageOrigins: string[] = []): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `img-src ${['data:', ...imageOrigins].join(' ')}`,
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const SHARED_CSS = `
:root{color-scheme:light;--ink:#1b1f23;--muted:#5f6368;--line:#dadce0;--bg:#fff;--soft:#f6f7f9;--blue:#0b5fff;--red:#b3261e;--amber:#8a5300;--green:#137333}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:12px;color:var(--ink);background:var(--bg);font-size:15px;line-height:1.4}
h1{font-size:1.15rem;margin:0 0 2px}h2{font-size:1rem;margin:16px 0 8px}
p{margin:0 0 8px}.muted{color:var(--muted)}
button{font:inherit;min-height:44px;padding:8px 16px;border-radius:10px;border:2px solid var(--blue);background:#fff;color:var(--blue);cursor:pointer}
button.primary{background:var(--blue);color:#fff}button.danger{background:var(--red);border-color:var(--red);color:#fff}
button[disabled]{opacity:.5;cursor:not-allowed}
button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
select,input[type=text]{font:inherit;min-height:44px;padding:8px;border:1px solid #bbb;border-radius:8px;background:#fff;max-width:100%}
.status{margin:8px 0}.status:empty{margin:0}.status.failed{color:var(--red)}.status.done{color:var(--green)}
[hidden]{display:none!important}
`;

/** The app's document, with a fresh nonce. */
export function appHtml(page: AppPage): { html: string; nonce: string } {
  sdk ??= loadSdk();
  const nonce = randomBytes(16).toString('base64');
  const policy = appPolicy(nonce, page.imageOrigins);
  // `</script` cannot appear in the SDK's or a page's code; were it there, it would end the element early.
  const script = `${sdk.body}\n;(function (App) {\n'use strict';\n${page.script}\n})(${sdk.app});\n`;
  if (/<\/script/i.test(script)) throw new Error('An app script contains "</script".');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style nonce="${nonce}">${SHARED_CSS}${page.css}</style>
</head><body>
${page.body}
<script type="module" nonce="${nonce}">${script}</script>
</body></html>`;
  return { html, nonce };
}
