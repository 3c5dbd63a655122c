/**
 * The last middleware: turns every error (ours, Express's, the body parser's) into a
 * problem+json answer. 5xx details are logged with the request id and never sent.
 */
import type { NextFunction, Request, Response } from 'express';
import { ApiError, invalidRequest } from '../../platform/errors';

/** What Express and its body parser throw: a status, and for the body parser a type. */
interface FrameworkError {
  status?: number;
  type?: string;
  message?: string;
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = (error ?? {}) as FrameworkError;
  if (e.type === 'entity.too.large')
    return new ApiError(413, 'payload_too_large', 'The body is larger than 1 MiB.');
  if (e.type === 'entity.parse.failed')
    return invalidRequest([{ path: '/body', message: 'is not valid JSON' }]);
  // Express's router, matching a route's parameters, cannot decode `%ED%A0%80` or `%ZZ`.
  if (e.status === 400 && /^Failed to decode param/.test(e.message ?? ''))
    return invalidRequest([{ path: '/path', message: 'is not a valid percent-encoded URL path' }]);
  if (e.status === 400) return invalidRequest([{ path: '/body', message: 'could not be read' }]);
  if (e.status === 413) return new ApiError(413, 'payload_too_large', 'The body is too large.');
  if (e.status === 415)
    return new ApiError(415, 'unsupported_media_type', 'Send the body as application/json (UTF-8).');
  return new ApiError(
    500,
    'internal_error',
    'Something went wrong on our side. Quote the request_id when reporting it.',
  );
}

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
