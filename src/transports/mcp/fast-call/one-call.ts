/**
 * The one request nearly every POST to /mcp is: a single `tools/call` or `tools/list` sent as an
 * assistant sends it (JSON, accepting JSON and event streams, no progress asked for, the standard
 * headers agreeing with the body). It is handed to the server built for it with less around it
 * than the SDK's HTTP entries put there, on the SDK's public interfaces only:
 * - 2025 era: a `Transport` (the exported interface) that carries that one message in and its
 *   answer out, instead of the web-standard transport's Request, Response and body streams;
 * - 2026-07-28: the SDK's own per-request transport (`PerRequestHTTPServerTransport`, which binds
 *   the server to the revision) with the SDK's classification (`classifyInboundRequest`), instead
 *   of `createMcpHandler`'s whole ladder, which this request has been seen to pass.
 * Anything else goes through the SDK's entries, which answer every case the specification names.
 * FAST_MCP_CALLS=off sends every request there (README.md here: what it saves, measured).
 */
import type { Request, Response } from 'express';
import {
  PROTOCOL_VERSION_META_KEY,
  PerRequestHTTPServerTransport,
  classifyInboundRequest,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { MODERN_REVISION } from '../revisions';

const PLAIN_METHODS = new Set(['tools/call', 'tools/list']);
const LEGACY_REVISIONS = new Set(['2025-11-25', '2025-06-18', '2025-03-26']);

type PlainCall = JSONRPCRequest & { params?: { name?: unknown; _meta?: Record<string, unknown> } };

/** The era of a plain call this module answers, or null for one it leaves to the SDK's entries. */
export function plainCallEra(req: Request): 'legacy' | 'modern' | null {
  const body = req.body as PlainCall | undefined;
  const accept = req.headers.accept ?? '';
  if (
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    body.jsonrpc !== '2.0' ||
    (typeof body.id !== 'string' && typeof body.id !== 'number') ||
    !PLAIN_METHODS.has(body.method) ||
    body.params?._meta?.progressToken !== undefined ||
    req.is('application/json') !== 'application/json' ||
    !accept.includes('application/json') ||
    !accept.includes('text/event-stream')
  )
    return null;
  const revision = req.headers['mcp-protocol-version'];
  const claimed = body.params?._meta?.[PROTOCOL_VERSION_META_KEY];
  if (claimed === undefined)
    return revision === undefined || LEGACY_REVISIONS.has(revision as string) ? 'legacy' : null;
  const name = body.method === 'tools/call' ? body.params?.name : undefined;
  const agrees =
    claimed === MODERN_REVISION &&
    revision === MODERN_REVISION &&
    req.headers['mcp-method'] === body.method &&
    req.headers['mcp-name'] === name;
  return agrees ? 'modern' : null;
}

/** Carries one request to the server and its answer back; notifications have nowhere to go in a JSON answer. */
class OneCallTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private answered!: (message: JSONRPCMessage) => void;
  readonly answer = new Promise<JSONRPCMessage>((resolve) => {
    this.answered = resolve;
  });

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if ('result' in message || 'error' in message) this.answered(message);
  }

  async close(): Promise<void> {}
}

export async function answerLegacyCall(server: Server, req: Request, res: Response): Promise<void> {
  const transport = new OneCallTransport();
  await server.connect(transport);
  transport.onmessage?.(req.body as JSONRPCMessage);
  res.status(200).json(await transport.answer);
  void server.close();
}

/**
 * A 2026-07-28 call, classified by the SDK; the rare request it would refuse (or answer in a way
 * this module does not) goes back to the full entry (`fullEntry`).
 */
export async function answerModernCall(
  server: Server,
  authInfo: AuthInfo,
  req: Request,
  res: Response,
  fullEntry: () => Promise<void>,
): Promise<void> {
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: req.headers['mcp-protocol-version'] as string,
    mcpMethodHeader: req.headers['mcp-method'] as string,
    mcpNameHeader: req.headers['mcp-name'] as string,
    body: req.body,
  });
  if (route.kind !== 'modern') return fullEntry();
  const transport = new PerRequestHTTPServerTransport({
    classification: route.classification,
    responseMode: 'json',
  });
  await server.connect(transport);
  const answer = await transport.handleMessage(req.body as JSONRPCRequest, { authInfo });
  res.status(answer.status);
  answer.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  res.end(await answer.text());
  void server.close();
}
