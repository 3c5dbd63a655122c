/**
 * Any error as the problem a client is answered with, for every transport (HTTP's problem+json,
 * MCP's isError results, the pages): ours as they are, Express's and its body parser's by what
 * they mean, anything else a 500 whose details are only logged.
 */
import { ApiError, invalidRequest } from '../../platform/errors';

/** What Express and its body parser throw: a status, and for the body parser a type. */
interface FrameworkError {
  status?: number;
  type?: string;
  message?: string;
  /** The body parser's limit, in bytes. */
  limit?: number;
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = (error ?? {}) as FrameworkError;
  if (e.type === 'entity.too.large')
    return new ApiError(
      413,
      'payload_too_large',
      `The body is larger than ${Math.round((e.limit ?? 1024 * 1024) / 1024 / 1024)} MiB.`,
    );
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
