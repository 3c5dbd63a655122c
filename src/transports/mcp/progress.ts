/**
 * Progress of a long tool call, sent to an MCP client that asked for it with
 * `_meta.progressToken`. A handler reports through `ctx.progress`; over HTTP, or when no token
 * was sent, reporting does nothing. The SDK answers such a call as an event stream.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { Progress } from '../../platform/handler';
import { noProgress } from '../../platform/pipeline';

/** Reports closer together than this are dropped (the last one of a call is always sent). */
const LEAST_INTERVAL_MS = 100;

export function progressOf(ctx: ServerContext): Progress {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return noProgress;
  let lastSent = 0;
  let lastProgress = -Infinity;
  return (progress, total, message) => {
    const now = Date.now();
    // The protocol asks progress to grow with every notification.
    if (progress <= lastProgress) return;
    if (now - lastSent < LEAST_INTERVAL_MS && progress !== total) return;
    lastSent = now;
    lastProgress = progress;
    const params = {
      progressToken,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message ? { message } : {}),
    };
    // A client that went away misses its progress; the call itself goes on and answers as usual.
    ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {});
  };
}

/** Whether a POST body (one message or a batch) has a request that asked for progress. */
export function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}
