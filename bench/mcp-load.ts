/** MCP tools/call under load, through the official client: a few clients calling in a loop. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { summarise, type CaseResult } from './measure';

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
      await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
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
