/**
 * The one request nearly every POST to /mcp is: a single `tools/call` or `tools/list`, sent as an
 * assistant sends it (JSON, accepting JSON and event streams, a protocol revision we speak, no
 * progress asked for). It is handed to the SDK's Server through a transport that only carries
 * that request in and its answer out. Anything else (initialize, batches, notifications, bad
 * headers) goes through the SDK's own HTTP transport, which answers every case the MCP
 * specification names: for one plain call its Request, Response and body streams cost a fifth of
 * the call's CPU. On the SDK's public interfaces only: its exported `Transport` interface, handed
 * to `Server#connect`. FAST_MCP_CALLS=off sends every request through the SDK's transport
 * (README.md here: what it saves, measured).
 */
import type { Request, Response } from 'express';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  SUPPORTED_PROTOCOL_VERSIONS,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

const PLAIN_METHODS = new Set(['tools/call', 'tools/list']);

export function isOnePlainCall(req: Request): boolean {
  const accept = req.headers.accept ?? '';
  const revision = req.headers['mcp-protocol-version'];
  return (
    PLAIN_METHODS.has((req.body as { method?: unknown } | undefined)?.method as string) &&
    isJSONRPCRequest(req.body) &&
    req.is('application/json') === 'application/json' &&
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    (revision === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(revision as string))
  );
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
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.answered(message);
  }

  async close(): Promise<void> {}
}

export async function answerOneCall(server: Server, req: Request, res: Response): Promise<void> {
  const transport = new OneCallTransport();
  await server.connect(transport);
  transport.onmessage?.(req.body as JSONRPCMessage, { requestInfo: { headers: req.headers } });
  res.status(200).json(await transport.answer);
}
