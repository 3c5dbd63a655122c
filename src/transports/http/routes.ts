/**
 * Express routes for every operation of the table: each checks its request against the spec
 * (platform/validation) and hands it to the pipeline, or for the admin API to its handler. A path
 * of the spec asked with another method is a 405 naming the allowed ones; any other path a 404.
 */
import type { Request, Response, Router } from 'express';
import {
  operations,
  type AdminOperationName,
  type OperationName,
  type OperationSpec,
} from '../../generated/operations';
import { errorsBeside, handlers } from '../../tools';
import type { AdminContext, ToolInput, ToolName } from '../../platform/handler';
import type { Deps } from '../../domain/services';
import { callerOf } from '../shared/credentials';
import { send } from '../shared/answers';
import { checkAnswer, checkHttpRequest } from '../../platform/validation';
import { ApiError } from '../../platform/errors';

const JSON_MEDIA = /^application\/json\s*(;|$)/i;

function inputOf(op: OperationSpec, req: Request): ToolInput<OperationName> {
  // A body that is not JSON is left unread by express.json(): say so rather than call it missing.
  if (op.hasBody && hasContent(req) && !JSON_MEDIA.test(req.headers['content-type'] ?? '')) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as application/json.');
  }
  // Express 5 parses req.query anew on each read: the checked (typed) copy is the one passed on.
  const parts = {
    path: { ...req.params },
    query: { ...(req.query as Record<string, unknown>) },
    body: op.hasBody ? (req.body as unknown) : undefined,
  };
  checkHttpRequest(op.name as OperationName, parts, errorsBeside[op.name as OperationName]);
  return { ...parts, body: parts.body ?? {} } as unknown as ToolInput<OperationName>;
}

function hasContent(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** `send`, after checking the answer against the spec when the service runs in its tests. */
function answer(
  deps: Deps,
  op: OperationSpec,
  res: Response,
  status: number,
  body: unknown,
  replayed = false,
): void {
  if (deps.config.validateResponses) checkAnswer(op.name as OperationName, status, body);
  send(res, status, body, replayed);
}

export function addToolRoutes(router: Router, deps: Deps): void {
  for (const op of Object.values(operations)) {
    if (op.scope === 'admin') continue;
    const name = op.name as ToolName;
    router[op.method.toLowerCase() as 'get'](op.expressPath, async (req: Request, res: Response) => {
      const result = await deps.pipeline.run(name, callerOf(res), inputOf(op, req));
      answer(deps, op, res, result.status, result.body, result.replayed);
    });
  }
}

export function addAdminRoutes(router: Router, deps: Deps): void {
  for (const op of Object.values(operations)) {
    if (op.scope !== 'admin') continue;
    const handler = handlers[op.name as AdminOperationName] as (
      ctx: AdminContext,
      input: ToolInput<OperationName>,
    ) => Promise<unknown>;
    router[op.method.toLowerCase() as 'get'](op.expressPath, async (req: Request, res: Response) => {
      answer(
        deps,
        op,
        res,
        op.successStatus,
        await handler({ db: deps.db, config: deps.config }, inputOf(op, req)),
      );
    });
  }
}

const routeMatchers = Object.values(operations).map((op) => ({
  op,
  pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
}));

/** After every route: a path of the spec with another method answers 405 with `Allow`, any other path 404. */
export function unmatchedRoute() {
  return (req: Request): never => {
    const allowed = routeMatchers.filter(({ pattern }) => pattern.test(req.path)).map(({ op }) => op.method);
    if (allowed.length === 0)
      throw new ApiError(404, 'not_found', 'There is no such endpoint. See /api/v1/openapi.json.');
    const methods = [...new Set(allowed)].join(', ');
    throw new ApiError(405, 'method_not_allowed', `${req.method} is not allowed here; use ${methods}.`, {
      headers: { Allow: methods },
    });
  };
}
