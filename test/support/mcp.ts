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
/** The newest 2025 revision, which a 2025 client's initialize gets. */
export const LEGACY_REVISION = '2025-11-25';

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

/** The official client, not yet connected, set to speak `era` (a 2026-07-28 client pins its revision). */
export function newMcpClient(era: McpEra = defaultEra(), capabilities?: ClientCapabilities): Client {
  return new Client(
    { name: 'jms-test', version: '1.0.0' },
    {
      ...(era === 'modern' && { versionNegotiation: { mode: { pin: MODERN_REVISION } } }),
      ...(capabilities && { capabilities }),
    },
  );
}

export async function connectMcp(
  t: Pick<TestApp, 'url'>,
  key: string,
  options: ConnectOptions = {},
): Promise<Client> {
  const era = options.era ?? defaultEra();
  const client = newMcpClient(era, options.capabilities);
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

/**
 * A request as it goes on the wire in an era, for tests that POST it themselves: in 2026-07-28
 * the `_meta` envelope and the standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name),
 * in 2025 the bare request with MCP-Protocol-Version 2025-11-25 (after an `initialize` that the
 * endpoint, being stateless, does not need to have seen).
 */
export function wireRequest(
  era: McpEra,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
): { headers: Record<string, string>; body: Record<string, unknown> } {
  if (era === 'legacy')
    return {
      headers: { 'MCP-Protocol-Version': LEGACY_REVISION },
      body: { jsonrpc: '2.0', id, method, params },
    };
  const name = typeof params.name === 'string' ? params.name : undefined;
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  return {
    headers: {
      'MCP-Protocol-Version': MODERN_REVISION,
      'Mcp-Method': method,
      ...(name === undefined ? {} : { 'Mcp-Name': name }),
    },
    body: {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          ...meta,
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'jms-wire-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
  };
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
