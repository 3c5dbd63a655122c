/**
 * The Express side of authentication and rate limits: reads the bearer secret and the client's
 * address off a request, asks the platform (platform/auth, platform/rate-limit) who is calling and
 * whether it may, and puts the answer on the response. HTTP, MCP, the pages and file links use it.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Knex } from 'knex';
import { authenticate, authenticateAdmin, type ProtectedResource } from '../../platform/auth';
import type { Caller } from '../../platform/caller';
import type { BudgetName, RateLimiter, RateLimitHeaders } from '../../platform/rate-limit';

/** The secret of `Authorization: Bearer <secret>`, or null. */
export function bearerToken(req: Request): string | null {
  const match = req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1] : null;
}

/** The client's address as the service sees it (behind a proxy: set TRUST_PROXY). */
export function addressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** Sets `res.locals.caller` for a valid API key, or an assistant's access token issued for this resource. */
export function requireCredential(db: Knex, limiter: RateLimiter, protectedResource: ProtectedResource) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.locals.caller = await authenticate(db, limiter, protectedResource, bearerToken(req), addressOf(req));
    next();
  };
}

/** The admin API's token (platform/auth's authenticateAdmin), charged to the admin budget. */
export function requireAdminToken(adminToken: string | undefined, limiter: RateLimiter) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.set(await authenticateAdmin(adminToken, limiter, bearerToken(req), addressOf(req)));
    next();
  };
}

/** The caller `requireCredential` found for this request. */
export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

/** Charges `points` units to `id`, with the RateLimit headers on the answer (a 429 carries them too). */
export async function charge(
  res: Response,
  limiter: RateLimiter,
  budget: BudgetName,
  id: string,
  points: number,
): Promise<void> {
  const headers: RateLimitHeaders = await limiter.charge(budget, id, points);
  res.set(headers);
}

/** One unit of the key's budget for each request (the HTTP API). */
export function chargeEachRequest(limiter: RateLimiter) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    await charge(res, limiter, 'work', callerOf(res).keyId, 1);
    next();
  };
}
