/**
 * The last middleware: turns every error (ours, Express's, the body parser's) into a
 * problem+json answer. 5xx details are logged with the request id and never sent.
 */
import type { NextFunction, Request, Response } from 'express';
import { toApiError } from '../shared/problems';

export function problemMiddleware() {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) req.log.error({ err: error }, 'request failed');
    // A streamed file (a ZIP, a PDF) that fails midway: the client must see a cut answer, not a
    // complete-looking one.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(apiError.extra.headers ?? {})) res.setHeader(name, value);
    // send(), not json(): the response validator checks handler answers, not problems.
    res
      .status(apiError.status)
      .type('application/problem+json')
      .send(JSON.stringify(apiError.toProblem(String(req.id))));
  };
}
