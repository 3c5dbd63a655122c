/**
 * The MCP endpoint (streamable HTTP, stateless): a new server and transport for each POST.
 * The tool list is the generated, compact one (src/generated/mcp-tools.ts), narrowed to the
 * toolsets the client asked for; a call's arguments are checked against the spec as an HTTP
 * request's parts are (platform/validation) and run through the same pipeline as HTTP.
 */
import type { Request, Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { operations } from '../../generated/operations';
import { mcpTools, type McpToolDefinition } from '../../generated/mcp-tools';
import { ApiError } from '../../platform/errors';
import { checkToolArguments } from '../../platform/validation';
import { errorsBeside } from '../../tools';
import type { Output, ToolInput, ToolName } from '../../platform/handler';
import { offeredTo, selectionOf, withinGrant, type ToolSelection } from './toolsets';
import { progressOf, wantsProgress } from './progress';
import { toApiError } from '../shared/problems';
import { mcpContentOf } from './content';
import { answerOneCall, isOnePlainCall } from './fast-call/one-call';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';
import { callerOf } from '../shared/credentials';
import { APPS_EXTENSION, APPS_EXTENSION_ID, toolUiMeta } from './apps';
import { appResources, RESOURCE_NOT_FOUND } from './app-resources';

const INSTRUCTIONS =
  'Job Management Service for restoration contractors. Call get_guide first: it explains how jobs, dates and amounts are named, lists every tool this key can use and gives recipes. Every write takes an operation_id you choose; resending the same one is safe.';

const definitions = new Map(mcpTools.map((def) => [def.name, def]));

function toolOf(def: McpToolDefinition): Tool {
  const { name, title, description, inputSchema, outputSchema, annotations } = def;
  const ui = toolUiMeta(name);
  return {
    name,
    title,
    description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    annotations: { ...annotations },
    // The MCP App that shows this tool's answer (./apps); hosts without apps ignore it.
    ...(ui ? { _meta: { ui } } : {}),
  };
}

const listed = mcpTools.map((def) => ({ def, tool: toolOf(def) }));

function toolsFor(caller: Caller, selection: ToolSelection): Tool[] {
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

interface Call {
  caller: Caller;
  selection: ToolSelection;
  req: Request;
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
}

async function callTool(
  deps: Deps,
  name: string,
  sent: unknown,
  { caller, selection, req, extra }: Call,
): Promise<CallToolResult> {
  try {
    const def = definitions.get(name)!;
    const call = deps.pipeline.call(def.name as ToolName, caller);
    if (!offeredTo(def, caller, selection)) {
      throw new ApiError(
        404,
        'not_found',
        `${name} is not offered to this client: it asked for ${selection.describe()}.`,
      );
    }
    const op = operations[def.name as ToolName];
    const args = withNumbersAsText(def, sent);
    const input = checkToolArguments(op.name as ToolName, args, errorsBeside[op.name as ToolName]);
    const answer = await call.run(input as ToolInput<ToolName>, progressOf(extra));
    const body = answer.body ?? {};
    const content = await mcpContentOf(deps, caller, op.name as ToolName, body as Output<ToolName>);
    return { content, structuredContent: body as Record<string, unknown> };
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.status >= 500) req.log.error({ err: error, tool: name }, 'tool call failed');
    else req.log.info({ tool: name, code: apiError.code }, 'tool call refused');
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(apiError.toProblem(String(req.id))) }],
    };
  }
}

/** Shared by every request's server: left to itself, each would build a validator of its own (15% of the CPU of a tools/call). */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

export function mcpEndpoint(deps: Deps) {
  const apps = appResources(deps.config.publicUrl);
  return async (req: Request, res: Response): Promise<void> => {
    const caller = callerOf(res);
    const selection = withinGrant(selectionOf(req), caller);
    const server = new Server(
      { name: 'job-management-service', version: '1.0.0' },
      {
        capabilities: { tools: {}, resources: {}, extensions: { [APPS_EXTENSION_ID]: APPS_EXTENSION } },
        instructions: INSTRUCTIONS,
        jsonSchemaValidator,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsFor(caller, selection) }));
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: apps.list() }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const page = apps.read(request.params.uri);
      if (!page)
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${request.params.uri}`, {
          uri: request.params.uri,
        });
      return page;
    });
    // tools/call is answered by the server's fallback handler (public), not by a handler for the
    // SDK's tools/call schema: that one would answer `arguments` that are not an object (an array,
    // a string) with an internal error, where they are a bad argument like any other, answered as
    // an invalid_request problem; and it would check every answer against the schema again.
    server.fallbackRequestHandler = async (request, extra) => {
      if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
      const { name, arguments: args } = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
      if (typeof name !== 'string')
        throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name, the name of a tool.');
      // An unknown tool is a protocol error (JSON-RPC -32602), as the MCP specification has it, not a failed call.
      if (!definitions.has(name))
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${name}. Call tools/list (or get_guide) for the tools this key can use.`,
        );
      return callTool(deps, name, args ?? {}, { caller, selection, req, extra });
    };
    // A request that asked for progress is answered as a stream (its notifications come first),
    // through the SDK's Node transport; a single plain call directly (./fast-call, unless
    // FAST_MCP_CALLS=off); any other as plain JSON through the SDK's web-standard transport.
    if (wantsProgress(req.body)) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: false,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      return;
    }
    if (deps.config.fastPaths.mcpCalls && isOnePlainCall(req)) return answerOneCall(server, req, res);
    await answerAsJson(server, req, res);
  };
}

/**
 * The SDK's web-standard transport, handed a Request made here from what Express has already
 * parsed: the Node transport's adapter builds a Request and a body stream for every POST and
 * streams the Response back, for an answer that is one JSON text.
 */
async function answerAsJson(server: Server, req: Request, res: Response): Promise<void> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(name, value);
    const answer = await transport.handleRequest(
      new globalThis.Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, {
        method: 'POST',
        headers,
      }),
      { parsedBody: req.body },
    );
    res.status(answer.status);
    answer.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.end(await answer.text());
  } finally {
    void transport.close();
    void server.close();
  }
}
