/**
 * The official MCP client against a test app, as an assistant connects: Streamable HTTP with the
 * key as a bearer token. The client lists the tools first, so that the SDK checks every result's
 * structuredContent against the tool's output schema.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from './app';

export async function connectMcp(t: TestApp, key: string): Promise<Client> {
  const client = new Client({ name: 'jms-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  await client.listTools();
  return client;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The problem details an `isError` result carries as its text (DESIGN §4). */
export interface McpProblem {
  status: number;
  code: string;
  title: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

export function problemOf(result: CallToolResult): McpProblem {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [content] = result.content;
  if (content?.type !== 'text')
    throw new Error(`an error result without text: ${JSON.stringify(result.content)}`);
  return JSON.parse(content.text) as McpProblem;
}
