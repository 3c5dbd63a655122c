// Helpers every app's page script shares (app-shell.ts puts this file first, inside the function
// that receives the ext-apps SDK's `App`). Text is always set as text, never as HTML.

/** An element with properties (`className`, `hidden`, …), attributes (`attrs`) and children (nodes or text). */
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (name === 'attrs') for (const [a, v] of Object.entries(value)) node.setAttribute(a, String(v));
    else node[name] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return node;
}

/** An SVG element with its attributes. */
function svgEl(tag, attrs, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  for (const child of children.flat()) if (child) node.append(child);
  return node;
}

/** Replaces the children of the element of this id. */
function fill(id, ...children) {
  const node = document.getElementById(id);
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

function say(text, kind) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.className = `status ${kind || ''}`;
}

/**
 * A tool's answer: `{ body }` (its structured content, else its text as JSON) or
 * `{ problem }` (the RFC 9457 problem an isError answer carries as text).
 */
function answerOf(result) {
  const text = (result.content || []).find((block) => block.type === 'text');
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text.text) : null;
  } catch {
    parsed = null;
  }
  if (result.isError) return { problem: parsed || { detail: text ? text.text : 'The tool failed.' } };
  return { body: result.structuredContent || parsed || {} };
}

/** Calls one of the service's tools through the host; a failed call answers its problem. */
async function callTool(app, name, args) {
  try {
    return answerOf(await app.callServerTool({ name, arguments: args }));
  } catch (error) {
    return {
      problem: { code: 'host_refused', detail: `The host could not call ${name}: ${error.message || error}` },
    };
  }
}

/** The app, connecting to the host; `handlers.input(args)` and `handlers.result(result)` receive the tool's call. */
function startApp(name, handlers) {
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  app.ontoolinput = (params) => handlers.input(params.arguments || {});
  app.ontoolresult = (params) => handlers.result(params);
  app.connect().catch((error) => say(`Not connected to the assistant: ${error.message || error}`, 'failed'));
  return app;
}

const plural = (count, one, many) => `${count} ${count === 1 ? one : many || `${one}s`}`;
