/**
 * Every request's id and its one log line. The id is the client's `X-Request-Id` when it is
 * well-formed, else a new one; it is sent back. The line — method, path, the names of the query's
 * parameters (their values are customers' names and phone numbers), status and time — is written
 * once the answer is sent, or once the client has gone without it. No headers, no bodies.
 * `req.log` is the logger for what is logged about the request, with its id; made when first used.
 */
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { newId } from '../../platform/ids';

declare module 'http' {
  interface IncomingMessage {
    id: string;
    log: Logger;
  }
}

const REQUEST_ID = /^[\w.-]{1,64}$/;

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : newId('req');
    res.setHeader('X-Request-Id', id);
    req.id = id;
    const about = () => ({ id, method: req.method, ...pathAndParameters(req.originalUrl) });
    let log: Logger | undefined;
    Object.defineProperty(req, 'log', { get: () => (log ??= logger.child({ req: about() })) });
    res.once('close', () => {
      const line = {
        req: about(),
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (!res.writableFinished) logger.warn(line, 'request aborted');
      else logger[res.statusCode >= 500 ? 'error' : 'info'](line, 'request completed');
    });
    next();
  };
}

/** `/api/v1/jobs?q=alvarez&limit=5` → the path and `["q", "limit"]`. */
function pathAndParameters(url: string): { path: string; query?: string[] } {
  const [path, query] = url.split('?', 2);
  return query === undefined ? { path } : { path, query: [...new URLSearchParams(query).keys()] };
}
