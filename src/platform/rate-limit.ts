/**
 * Per-key rate limit: `perMinute` requests a minute, at most `burst` of them within one second.
 * Every answer carries `RateLimit` and `RateLimit-Policy`; a 429 also `Retry-After`.
 */
import type { NextFunction, Request, Response } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from './errors';
import { callerOf } from './auth';

export function rateLimitPerKey(limits: { perMinute: number; burst: number }) {
  const minute = new RateLimiterMemory({ points: limits.perMinute, duration: 60 });
  const second = new RateLimiterMemory({ points: limits.burst, duration: 1 });
  const policy = `${limits.perMinute};w=60, ${limits.burst};w=1`;

  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = callerOf(res).keyId;
    res.setHeader('RateLimit-Policy', policy);
    try {
      const [perMinute] = await Promise.all([minute.consume(key), second.consume(key)]);
      res.setHeader('RateLimit', `limit=${limits.perMinute}, remaining=${perMinute.remainingPoints}, reset=${Math.ceil(perMinute.msBeforeNext / 1000)}`);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new ApiError(429, 'rate_limited', `Too many requests with this key; try again in ${retryAfter} s.`, {
        headers: { 'Retry-After': String(retryAfter), RateLimit: `limit=${limits.perMinute}, remaining=0, reset=${retryAfter}` },
      });
    }
    next();
  };
}
