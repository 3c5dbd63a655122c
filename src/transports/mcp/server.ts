/**
 * The MCP server one request is answered by, in either protocol era (the SDK's version 2 builds
 * one per request and tells which era it serves). The tool list is the generated, compact one
 * (src/generated/mcp-tools.ts), narrowed to the toolsets the client asked for; a call's arguments
 * are checked against the spec as an HTTP request's parts are (platform/validation) and run
 * through the same pipeline as HTTP.
 */
import type { Request } from 'express';
import {
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  Server,
  type CallToolResult,
  type InputRequiredResult,
  type JSONRPCRequest,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { mcpTools, type McpToolDefinition } from '../../generated/mcp-tools';
import { ApiError } from '../../platform/errors';
import { checkToolArguments } from '../../platform/validation';
import { errorsBeside } from '../../tools';
import type { Output, ToolInput, ToolName } from '../../platform/handler';
import { offeredTo, type ToolSelection } from './toolsets';
import { progressOf } from './progress';
import { toApiError } from '../shared/problems';
import { mcpContentOf } from './content';
import { answerWithChoice, asksPerson } from './human-choice';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';
import { APPS_EXTENSION, APPS_EXTENSION_ID, toolUiMeta } from './apps';
import { addResourceHandlers, RESOURCE_CACHE_HINTS } from './resources';
import { MODERN_REVISION } from './revisions';

const INSTRUCTIONS =
  'Job Management Service for restoration contractors. Call get_guide first: it explains how jobs, dates and amounts are named, lists every tool this key can use and gives recipes. Every write takes an operation_id you choose; resending the same one is safe.';

/** Who asks and what they chose, for the one request a server answers. */
export interface McpCallContext {
  caller: Caller;
  selection: ToolSelection;
  req: Request;
}

const definitions = new Map(mcpTools.map((def) => [def.name, def]));

function toolOf(def: McpToolDefinition): Tool {
  const { name, title, description, inputSchema, outputSchema, annotations } = def;
  const ui = toolUiMeta(name);
  return {
    name,
    title,
    description,
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    annotations: { ...annotations },
    // The MCP App that shows this tool's answer (./apps); hosts without apps ignore it.
    ...(ui ? { _meta: { ui } } : {}),
  };
}

const listed = mcpTools.map((def) => ({ def, tool: toolOf(def) }));

function toolsFor({ caller, selection }: McpCallContext): Tool[] {
  return listed.filter(({ def }) => offeredTo(def, caller, selection)).map(({ tool }) => tool);
}

/** A job's number may come as a JSON number (16); the spec's job reference is text ("16"). */
function withNumbersAsText(def: McpToolDefinition, args: unknown): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const record = args as Record<string, unknown>;
  const numbered = def.numberArguments.filter((name) => Number.isInteger(record[name]));
  return numbered.length === 0
    ? args
    : { ...record, ...Object.fromEntries(numbered.map((name) => [name, String(record[name])])) };
}

/** Runs one call through the pipeline; a refusal is thrown, as the pipeline throws it. */
async function runTool(
  deps: Deps,
  def: McpToolDefinition,
  sent: unknown,
  asSent: unknown,
  context: McpCallContext,
  ctx: ServerContext,
): Promise<CallToolResult> {
  const { caller, selection } = context;
  const call = deps.pipeline.call(def.name as ToolName, caller);
  if (!offeredTo(def, caller, selection)) {
    throw new ApiError(
      404,
      'not_found',
      `${def.name} is not offered to this client: it asked for ${selection.describe()}.`,
    );
  }
  const name = def.name as ToolName;
  const checked = (args: unknown) =>
    checkToolArguments(name, withNumbersAsText(def, args), errorsBeside[name]) as ToolInput<ToolName>;
  const input = checked(sent);
  const answer = await call.run(input, progressOf(ctx), asSent === sent ? input : checked(asSent));
  const body = answer.body ?? {};
  const content = await mcpContentOf(deps, caller, name, body as Output<ToolName>);
  return { content, structuredContent: body as Record<string, unknown> };
}

/** A refusal as MCP answers it: the problem as the text of an isError result (DESIGN §4). */
function problemResult(error: unknown, def: McpToolDefinition, req: Request): CallToolResult {
  const apiError = toApiError(error);
  if (apiError.status >= 500) req.log.error({ err: error, tool: def.name }, 'tool call failed');
  else req.log.info({ tool: def.name, code: apiError.code }, 'tool call refused');
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(apiError.toProblem(String(req.id))) }],
  };
}

async function callTool(
  deps: Deps,
  def: McpToolDefinition,
  sent: unknown,
  context: McpCallContext,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const run = (args: unknown, asSent: unknown) => runTool(deps, def, args, asSent, context, ctx);
  // A state that fails its check is a protocol error (-32602), thrown before any run: not a problem.
  const answered = asksPerson(def.name, ctx)
    ? answerWithChoice(deps.media.links, context.caller, def.name, sent, ctx, run)
    : run(sent, sent);
  return answered.catch((error: unknown) => {
    if (error instanceof ProtocolError) throw error;
    return problemResult(error, def, context.req);
  });
}

/**
 * tools/call, answered by the server's fallback handler (public) rather than a handler for the
 * SDK's tools/call schema: that one answers `arguments` that are not an object (an array, a
 * string) with a protocol error, where they are a bad argument like any other, answered as an
 * invalid_request problem.
 */
function answerToolCall(deps: Deps, context: McpCallContext) {
  return async (
    request: JSONRPCRequest,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> => {
    if (request.method !== 'tools/call')
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    const { name, arguments: args } = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string')
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'tools/call needs params.name, the name of a tool.',
      );
    const def = definitions.get(name);
    // An unknown tool is a protocol error (JSON-RPC -32602), as the MCP specification has it, not a failed call.
    if (!def)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${name}. Call tools/list (or get_guide) for the tools this key can use.`,
      );
    return callTool(deps, def, args ?? {}, context, ctx);
  };
}

/** Shared by every request's server: left to itself, each would build a validator of its own (15% of the CPU of a tools/call). */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * How long a client may keep an answer. The tool list depends on the key (its scope, the
 * assistant's grant) and on the toolsets asked for, so it is private to the caller; it changes
 * only with a new release of the service, which a five-minute freshness lets clients see soon.
 */
const TOOL_LIST_TTL_MS = 5 * 60_000;

/** The 2026-07-28 revision (per-request `_meta`, no handshake) and the 2025 ones the SDK speaks. */
const REVISIONS = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/**
 * `era`: which protocol era the server answers. Resources are in both; their subscriptions only
 * in 2026-07-28 (`subscriptions/listen`, ./subscriptions.ts): a 2025 client of this stateless
 * endpoint has no stream to be told on, and polls list_changes.
 */
export function buildMcpServer(deps: Deps, context: McpCallContext, era: 'legacy' | 'modern'): Server {
  const server = new Server(
    { name: 'job-management-service', version: '1.0.0' },
    {
      // Resources: jobs and their drying logs (./job-resources.ts) and the MCP Apps' pages
      // (./apps), declared as the extension io.modelcontextprotocol/ui.
      capabilities: {
        tools: {},
        resources: era === 'modern' ? { subscribe: true } : {},
        extensions: { [APPS_EXTENSION_ID]: APPS_EXTENSION },
      },
      instructions: INSTRUCTIONS,
      supportedProtocolVersions: REVISIONS,
      jsonSchemaValidator,
      cacheHints: {
        'tools/list': { ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'private' },
        'server/discover': { ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'public' },
        ...RESOURCE_CACHE_HINTS,
      },
    },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: toolsFor(context) }));
  addResourceHandlers(server, deps, context.caller, era);
  // Only for a request that calls a tool: any other method without a handler is then refused by
  // the SDK before dispatch, which 2026-07-28 answers with HTTP 404 as the revision asks (a
  // handler's -32601 is an in-band answer, HTTP 200).
  if (callsATool(context.req.body)) server.fallbackRequestHandler = answerToolCall(deps, context);
  return server;
}

function callsATool(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method === 'tools/call');
}
