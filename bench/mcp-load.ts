/**
 * MCP tools/call under load, two ways: POSTs of JSON-RPC by the same load generator as the HTTP
 * cases (what the service does, compared like with like), and through the official client, a few
 * clients calling in a loop (whose own CPU, about a millisecond a call, shares this machine).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { summarise, type CaseResult, type HttpCase } from './measure';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** A tools/call as a stateless POST to /mcp, for runHttpCase. */
export function mcpPostCase(
  name: string,
  next: () => { tool: string; args: Record<string, unknown> },
): HttpCase {
  return {
    name,
    method: 'POST',
    headers: MCP_HEADERS,
    next: () => {
      const { tool, args } = next();
      return {
        path: '/mcp',
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
      };
    },
  };
}

/** A tool call's failure is a 200 with isError: one call first, so that a case cannot measure failures. */
export async function checkToolCall(
  baseUrl: string,
  credential: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<void> {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', ...MCP_HEADERS },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args },
    }),
  });
  const answer = (await res.json()) as { result?: CallToolResult };
  if (res.status !== 200 || !answer.result || answer.result.isError)
    throw new Error(`${tool} over MCP failed: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
}

export async function runMcpCase(
  baseUrl: string,
  key: string,
  name: string,
  next: () => { tool: string; args: Record<string, unknown> },
  options: { connections: number; seconds: number },
): Promise<CaseResult> {
  const clients = await Promise.all(
    Array.from({ length: options.connections }, async () => {
      const client = new Client({ name: 'jms-bench', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${key}` } },
        }),
      );
      return client;
    }),
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
          const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
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
