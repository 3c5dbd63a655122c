/**
 * The MCP endpoint: one URL for every protocol era.
 * - 2026-07-28 (each request's `_meta` names the revision; no handshake, no session): the SDK's
 *   version 2 entry, `createMcpHandler`, which answers `server/discover`, checks the standard
 *   headers, adds the cache hints and `resultType`, and streams `subscriptions/listen`.
 * - 2025-11-25, 2025-06-18 and 2025-03-26 (`initialize`, then stateless requests): the SDK's
 *   web-standard transport without sessions, answering plain JSON (an event stream only when a
 *   call asked for progress), as this endpoint answered before the 2026 revision.
 * The SDK's own predicate (`isLegacyRequest`) tells the two apart, so that the split never
 * disagrees with the entry's. Either way the request is answered by a server built for it
 * (./server.ts). Express has already checked the key (or the assistant's token) and read the body.
 * A `subscriptions/listen` is checked and watched here before the entry streams it
 * (./subscriptions.ts); when the node stops, its open streams end.
 */
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import {
  ProtocolError,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import type { Deps } from '../../domain/services';
import { FeedWatch } from '../../platform/feed-watch';
import { bearerToken, callerOf } from '../shared/credentials';
import { checkSubscriptions } from './resources';
import { ListenStreams, listenRequestOf } from './subscriptions';
import { selectionOf, withinGrant } from './toolsets';
import { buildMcpServer, type McpCallContext } from './server';
import { wantsProgress } from './progress';
import { sendWebResponse, webRequestOf } from './web-exchange';
import { answerLegacyCall, answerModernCall, plainCallEra } from './fast-call/one-call';

const CONTEXT_KEY = 'jmsCall';

function contextOf(authInfo: AuthInfo | undefined): McpCallContext {
  const context = authInfo?.extra?.[CONTEXT_KEY] as McpCallContext | undefined;
  // Every request reaches the handler through mcpEndpoint, which sets it: a missing one is a bug.
  if (!context) throw new Error('an MCP request without its caller');
  return context;
}

export function mcpEndpoint(deps: Deps & { logger: Logger }) {
  const modern = createMcpHandler(
    ({ authInfo }) => buildMcpServer(deps, contextOf(authInfo), 'modern'),
    { legacy: 'reject' }, // 2025 requests never reach it: answerLegacy serves them
  );
  const streams = new ListenStreams(deps.db, new FeedWatch(deps.db, deps.logger), modern.bus);
  deps.stopping?.addEventListener('abort', () => streams.endAll(), { once: true });
  return async (req: Request, res: Response): Promise<void> => {
    const caller = callerOf(res);
    const context: McpCallContext = { caller, selection: withinGrant(selectionOf(req), caller), req };
    const fullEntry = async () => {
      const aborted = new AbortController();
      res.on('close', () => aborted.abort());
      const request = webRequestOf(req, aborted.signal);
      if (await isLegacyRequest(request, req.body))
        return sendWebResponse(await answerLegacy(deps, context, request), res);
      const listen = listenRequestOf(req.body);
      if (listen) {
        const refused = await refusal(() => checkSubscriptions(deps, caller, listen.uris), listen.id);
        if (refused) return void res.json(refused);
        const release = await streams.open(caller, bearerToken(req) ?? '', () => aborted.abort());
        if (aborted.signal.aborted) release();
        else res.on('close', release);
      }
      const answer = await modern.fetch(request, { authInfo: authInfoOf(context), parsedBody: req.body });
      await sendWebResponse(answer, res);
    };
    // A single plain call (nearly every request) skips the entries' HTTP layers: ./fast-call.
    const era = deps.config.fastPaths.mcpCalls ? plainCallEra(req) : null;
    if (era === 'legacy') return answerLegacyCall(buildMcpServer(deps, context, 'legacy'), req, res);
    if (era === 'modern')
      return answerModernCall(
        buildMcpServer(deps, context, 'modern'),
        authInfoOf(context),
        req,
        res,
        fullEntry,
      );
    await fullEntry();
  };
}

/** The JSON-RPC error answer of a check that failed with a protocol error, else null. */
async function refusal(check: () => Promise<void>, id: string | number) {
  try {
    await check();
    return null;
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    const { code, message, data } = error;
    return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
  }
}

function authInfoOf(context: McpCallContext): AuthInfo {
  const { caller } = context;
  return { token: '', clientId: caller.keyId, scopes: [caller.scope], extra: { [CONTEXT_KEY]: context } };
}

/** A 2025-era request: plain JSON, unless a call asked for progress (then its events come first). */
async function answerLegacy(
  deps: Deps,
  context: McpCallContext,
  request: globalThis.Request,
): Promise<globalThis.Response> {
  const server = buildMcpServer(deps, context, 'legacy');
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !wantsProgress(context.req.body),
  });
  await server.connect(transport);
  const answer = await transport.handleRequest(request, { parsedBody: context.req.body });
  // A JSON answer is complete; an event stream closes the server when the client goes.
  if (!answer.headers.get('content-type')?.startsWith('text/event-stream')) {
    void transport.close();
    void server.close();
  } else request.signal.addEventListener('abort', () => void server.close());
  return answer;
}
