/** Express routes for every operation of the table: one generic route per transport area. */
import type { Request, Response, Router } from 'express';
import { operations, type AdminOperationName, type OperationName, type ReadOperationName, type WriteOperationName } from '../../generated/operations';
import { handlers } from '../../tools';
import type { AdminContext, ToolInput } from '../../platform/handler';
import { refuseUnstorableText } from '../../platform/inputs';
import type { Deps } from '../../domain/services';
import { callerOf } from '../../platform/caller';

function inputOf(req: Request): ToolInput<OperationName> {
  const input = { path: req.params, query: req.query, body: req.body ?? {} };
  refuseUnstorableText(input);
  return input as unknown as ToolInput<OperationName>;
}

/** A tool's answer as HTTP: its status and JSON body, marked when it is a replay. */
export function send(res: Response, status: number, body: unknown, replayed = false): void {
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (body === undefined) res.status(status).end();
  else res.status(status).json(body);
}

export function addToolRoutes(router: Router, deps: Deps): void {
  for (const op of Object.values(operations)) {
    if (op.scope === 'admin') continue;
    const name = op.name as ReadOperationName | WriteOperationName;
    router[op.method.toLowerCase() as 'get'](op.expressPath, async (req: Request, res: Response) => {
      const answer = await deps.pipeline.run(name, callerOf(res), inputOf(req));
      send(res, answer.status, answer.body, answer.replayed);
    });
  }
}

export function addAdminRoutes(router: Router, deps: Deps): void {
  for (const op of Object.values(operations)) {
    if (op.scope !== 'admin') continue;
    const handler = handlers[op.name as AdminOperationName] as (ctx: AdminContext, input: ToolInput<OperationName>) => Promise<unknown>;
    router[op.method.toLowerCase() as 'get'](op.expressPath, async (req: Request, res: Response) => {
      send(res, op.successStatus, await handler({ db: deps.db, config: deps.config }, inputOf(req)));
    });
  }
}
