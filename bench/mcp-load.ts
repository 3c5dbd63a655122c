/**
 * MCP tools/call under load, two ways: POSTs of JSON-RPC by the same load generator as the HTTP
 * cases (what the service does, compared like with like), and through the official client (the
 * SDK's version 2), a few clients calling in a loop (whose own CPU, about a millisecond a call,
 * shares this machine). Either way in one of the two protocol eras: `legacy` sends what a
 * 2025-11-25 client sends after its initialize, `modern` a 2026-07-28 request (`_meta` envelope,
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name).
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { summarise, type CaseResult, type HttpCase } from './measure';

export type McpEra = 'modern' | 'legacy';
const MODERN_REVISION = '2026-07-28';
const LEGACY_REVISION = '2025-11-25';
const ACCEPT = 'application/json, text/event-stream';

/** The headers and body of one tools/call in an era. */
function toolCall(
  era: McpEra,
  tool: string,
  args: Record<string, unknown>,
): { headers: Record<string, string>; body: unknown } {
  if (era === 'legacy')
    return {
      headers: { accept: ACCEPT, 'mcp-protocol-version': LEGACY_REVISION },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
    };
  return {
    headers: {
      accept: ACCEPT,
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'jms-bench', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
  };
}

/**
 * A tools/call as a stateless POST to /mcp, for runHttpCase. The headers are the case's, so one
 * case calls one tool (its name is in Mcp-Name); the first call of `next` names it.
 */
export function mcpPostCase(
  name: string,
  next: () => { tool: string; args: Record<string, unknown> },
  era: McpEra = 'legacy',
): HttpCase {
  const first = next();
  return {
    name,
    method: 'POST',
    headers: toolCall(era, first.tool, first.args).headers,
    next: () => {
      const { tool, args } = next();
      if (tool !== first.tool) throw new Error(`one case calls one tool: ${first.tool}, then ${tool}`);
      return { path: '/mcp', body: toolCall(era, tool, args).body };
    },
  };
}

/** A tool call's failure is a 200 with isError: one call first, so that a case cannot measure failures. */
export async function checkToolCall(
  baseUrl: string,
  credential: string,
  tool: string,
  args: Record<string, unknown>,
  era: McpEra = 'legacy',
): Promise<void> {
  const { headers, body } = toolCall(era, tool, args);
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { result?: CallToolResult & { resultType?: string } };
  const complete = era === 'legacy' || answer.result?.resultType === 'complete';
  if (res.status !== 200 || !answer.result || answer.result.isError || !complete)
    throw new Error(`${tool} over MCP failed: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
}

async function connected(baseUrl: string, key: string, era: McpEra): Promise<Client> {
  const client = new Client(
    { name: 'jms-bench', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  if (client.getProtocolEra() !== era)
    throw new Error(`asked for the ${era} era, got ${client.getProtocolEra()}`);
  return client;
}

export async function runMcpCase(
  baseUrl: string,
  key: string,
  name: string,
  next: () => { tool: string; args: Record<string, unknown> },
  options: { connections: number; seconds: number },
  era: McpEra = 'legacy',
): Promise<CaseResult> {
  const clients = await Promise.all(
    Array.from({ length: options.connections }, () => connected(baseUrl, key, era)),
  );
  const latencies: number[] = [];
  let errors = 0;
  const started = Date.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < deadline) {
        const { tool, args } = next();
        const t0 = performance.now();
        try {
          const result = await client.callTool({ name: tool, arguments: args });
          if (result.isError) errors += 1;
        } catch {
          errors += 1;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  await Promise.all(clients.map((client) => client.close()));
  return summarise(name, latencies, (Date.now() - started) / 1000, errors, 0);
}
