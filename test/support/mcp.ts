/**
 * The official MCP client (the SDK's version 2) against a test app, as an assistant connects:
 * Streamable HTTP with the key as a bearer token, in either protocol era. The client lists the
 * tools first, so that the SDK checks every result's structuredContent against the tool's output
 * schema.
 *
 * Eras: `modern` is the 2026-07-28 revision (no handshake, `_meta` on every request), `legacy`
 * the 2025-11-25 one (`initialize`). A test of behaviour both share runs in both with
 * `describe.each(MCP_ERAS)`; a test that uses MCP only on the way to something else connects in
 * `defaultEra()`, which MCP_ERA sets (CI runs its PGlite pass in one era and its PostgreSQL pass
 * in the other).
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import type { TestApp } from './app';

export type McpEra = 'modern' | 'legacy';
export const MCP_ERAS: McpEra[] = ['modern', 'legacy'];
export const MODERN_REVISION = '2026-07-28';

export function defaultEra(): McpEra {
  return process.env.MCP_ERA === 'legacy' ? 'legacy' : 'modern';
}

export interface ConnectOptions {
  era?: McpEra;
  /** Extra request headers (toolsets, read-only). */
  headers?: Record<string, string>;
  /** A query string for the MCP URL, e.g. `?readonly=true`. */
  query?: string;
  /** What the client declares it can do, e.g. `{ elicitation: { form: {} } }` (none by default). */
  capabilities?: ClientCapabilities;
  /** Answers the forms the server asks the person to fill (registered before connecting). */
  elicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
}

export async function connectMcp(
  t: Pick<TestApp, 'url'>,
  key: string,
  options: ConnectOptions = {},
): Promise<Client> {
  const era = options.era ?? defaultEra();
  const client = new Client(
    { name: 'jms-test', version: '1.0.0' },
    {
      ...(era === 'modern' && { versionNegotiation: { mode: { pin: MODERN_REVISION } } }),
      ...(options.capabilities && { capabilities: options.capabilities }),
    },
  );
  const { elicit } = options;
  if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp${options.query ?? ''}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}`, ...options.headers } },
    }),
  );
  if (client.getProtocolEra() !== era)
    throw new Error(`asked for the ${era} era, got ${client.getProtocolEra()}`);
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
