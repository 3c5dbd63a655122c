/**
 * The last middleware: turns every error (ours, the validator's, the body parser's) into a
 * problem+json answer. 5xx details are logged with the request id and never sent.
 */
import type { NextFunction, Request, Response } from 'express';
import { ApiError, invalidRequest } from '../../platform/errors';

interface ValidatorError {
  status?: number;
  type?: string;
  message?: string;
  errors?: { path?: string; message?: string; errorCode?: string }[];
  headers?: Record<string, string>;
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = (error ?? {}) as ValidatorError;
  if (e.type === 'entity.too.large') return new ApiError(413, 'payload_too_large', 'The body is larger than 1 MiB.');
  if (e.type === 'entity.parse.failed') {
    return invalidRequest([{ path: '/body', message: 'is not valid JSON' }]);
  }
  switch (e.status) {
    case 400:
      // Express's router, matching a route's parameters, cannot decode `%ED%A0%80`.
      if (!e.errors && /^Failed to decode param/.test(e.message ?? '')) return invalidRequest([{ path: '/path', message: 'is not a valid percent-encoded URL path' }]);
      return invalidRequest((e.errors ?? []).map((item) => ({ path: fieldPath(item.path, item.errorCode), message: fieldMessage(item.message) })));
    case 404:
      return new ApiError(404, 'not_found', 'There is no such endpoint. See /api/v1/openapi.json.');
    case 405:
      // RFC 9110: a 405 names the methods that are allowed (the validator's `Allow` header).
      return new ApiError(405, 'method_not_allowed', e.message ?? 'This method is not allowed here.', e.headers?.Allow ? { headers: { Allow: e.headers.Allow } } : {});
    case 413:
      return new ApiError(413, 'payload_too_large', 'The body is too large.');
    case 415:
      return new ApiError(415, 'unsupported_media_type', 'Send the body as application/json.');
    default:
      return new ApiError(500, 'internal_error', 'Something went wrong on our side. Quote the request_id when reporting it.');
  }
}

/**
 * `.body.customer_email` or `/body/customer_email` → `/body/customer_email`; `/params/x` → `/path/x`.
 * The validator names a URL it cannot decode (`%FF`, `%ZZ`) by the URL itself: that is the path.
 */
function fieldPath(path: string | undefined, errorCode?: string): string {
  // The validator loses the place of a body field named "" (its JSON pointer is `/body/`).
  if (!path) return errorCode?.startsWith('additionalProperties') ? '/body/' : '/';
  const slashed = path.startsWith('/') ? path : `/${path.replace(/^\./, '').replace(/\./g, '/')}`;
  const named = slashed.replace(/^\/params(\/|$)/, '/path$1');
  return /^\/(body|query|path|headers)(\/|$)/.test(named) ? named : '/path';
}

function fieldMessage(message: string | undefined): string {
  if (!message) return 'is invalid';
  return /^malformed uri/i.test(message) ? 'is not a valid percent-encoded URL path' : message;
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
    res.status(apiError.status).type('application/problem+json').send(JSON.stringify(apiError.toProblem(String(req.id))));
  };
}
