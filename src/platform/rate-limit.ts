/**
 * Rate limits, counted in work rather than in HTTP requests:
 * - every HTTP request with a key, and every MCP tool call (batched or not), is one unit of the
 *   key's budget: `perMinute` a minute, at most `burst` of them within a second;
 * - MCP's protocol messages (initialize, notifications, tools/list, ping) draw on an allowance of
 *   their own, PROTOCOL_FACTOR (5) times as large, so that a stateless client's handshake before each
 *   call never costs it a tool call, while a flood of them is still stopped;
 * - the admin token has a budget of its own (ADMIN_RATE_LIMIT_PER_MINUTE, bursts allowed);
 * - failed authentication (no key, a malformed, unknown or revoked key, a wrong admin token) is
 *   limited per client address. From an address over that limit, a key or token that stands is
 *   still answered (a client is never refused for other clients' failures at its address: an
 *   office shares one); any other is refused without a look-up (platform/auth, key-cache), so
 *   that guessing costs the database nothing.
 * With REDIS_URL the counts live in Redis and every node shares them; without it each node
 * counts on its own. Every answer to a key carries `RateLimit-Policy` and `RateLimit` (of the
 * window nearest its end); a 429 names the window that refused it and carries `Retry-After`.
 */
import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ApiError, invalidRequest } from './errors';

export interface Limits {
  perMinute: number;
  burst: number;
}

export interface RateLimitSettings extends Limits {
  admin: Limits;
  /** Failed authentications allowed per client address. */
  failedAuth: Limits;
}

const PROTOCOL_FACTOR = 5;

interface Window {
  limit: number;
  seconds: number;
  limiter: RateLimiterAbstract;
}

/** A per-minute and a per-second window over the same ids. */
class Budget {
  readonly policy: string;
  private readonly windows: Window[];

  constructor(name: string, limits: Limits, redis: Redis | null) {
    this.policy = `${limits.perMinute};w=60, ${limits.burst};w=1`;
    this.windows = [
      { limit: limits.perMinute, seconds: 60, limiter: limiterOf(`${name}:m`, limits.perMinute, 60, redis) },
      { limit: limits.burst, seconds: 1, limiter: limiterOf(`${name}:s`, limits.burst, 1, redis) },
    ];
  }

  get burst(): number {
    return this.windows[1].limit;
  }

  /** Takes `points` in every window; the answer describes the window nearest its end, or the one that refused. */
  async consume(
    id: string,
    points: number,
  ): Promise<{ allowed: boolean; header: string; retryAfter: number }> {
    const outcomes = await Promise.allSettled(this.windows.map((w) => w.limiter.consume(id, points)));
    const states = outcomes.map((outcome, i) => {
      if (outcome.status === 'fulfilled')
        return { window: this.windows[i], res: outcome.value, allowed: true };
      if (outcome.reason instanceof RateLimiterRes)
        return { window: this.windows[i], res: outcome.reason, allowed: false };
      throw outcome.reason;
    });
    const refused = states
      .filter((s) => !s.allowed)
      .sort((a, b) => b.res.msBeforeNext - a.res.msBeforeNext)[0];
    const shown =
      refused ??
      states.sort(
        (a, b) => a.res.remainingPoints / a.window.limit - b.res.remainingPoints / b.window.limit,
      )[0];
    const reset = Math.max(1, Math.ceil(shown.res.msBeforeNext / 1000));
    return {
      allowed: !refused,
      header: `limit=${shown.window.limit}, remaining=${refused ? 0 : shown.res.remainingPoints}, reset=${reset}`,
      retryAfter: reset,
    };
  }

  /** True when `id` has used up a window already (nothing is taken). */
  async exhausted(id: string): Promise<boolean> {
    const states = await Promise.all(this.windows.map((w) => w.limiter.get(id)));
    return states.some((state, i) => state !== null && state.consumedPoints >= this.windows[i].limit);
  }
}

function limiterOf(
  keyPrefix: string,
  points: number,
  duration: number,
  redis: Redis | null,
): RateLimiterAbstract {
  // Once a window is used up, further requests of that id are refused from memory, without
  // asking Redis, until the window ends.
  const inMemory = new RateLimiterMemory({ keyPrefix, points, duration });
  if (!redis) return inMemory;
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `jms:rl:${keyPrefix}`,
    points,
    duration,
    inMemoryBlockOnConsumed: points + 1,
    insuranceLimiter: inMemory,
  });
}

export type BudgetName = 'work' | 'protocol' | 'admin';

/** What an answer to a key says of its budget: `RateLimit-Policy` and `RateLimit`. */
export type RateLimitHeaders = Record<'RateLimit-Policy' | 'RateLimit', string>;

export class RateLimiter {
  private readonly budgets: Record<BudgetName, Budget>;
  private readonly failures: Budget;

  constructor(settings: RateLimitSettings, redis: Redis | null) {
    const protocol = {
      perMinute: settings.perMinute * PROTOCOL_FACTOR,
      burst: settings.burst * PROTOCOL_FACTOR,
    };
    this.budgets = {
      work: new Budget('work', settings, redis),
      protocol: new Budget('protocol', protocol, redis),
      admin: new Budget('admin', settings.admin, redis),
    };
    this.failures = new Budget('auth-failures', settings.failedAuth, redis);
  }

  /**
   * Charges `points` units to `id` and gives the RateLimit headers of the answer; past the budget
   * throws the 429, which carries them too.
   */
  async charge(budgetName: BudgetName, id: string, points: number): Promise<RateLimitHeaders> {
    const budget = this.budgets[budgetName];
    if (points > budget.burst) {
      throw invalidRequest([
        { path: '/body', message: `carries ${points} calls; at most ${budget.burst} fit in one request` },
      ]);
    }
    const outcome = await budget.consume(id, points);
    const headers = { 'RateLimit-Policy': budget.policy, RateLimit: outcome.header };
    if (!outcome.allowed) {
      const what = budgetName === 'protocol' ? 'MCP protocol messages' : 'requests';
      throw new ApiError(
        429,
        'rate_limited',
        `Too many ${what} with this key; try again in ${outcome.retryAfter} s.`,
        {
          headers: { ...headers, 'Retry-After': String(outcome.retryAfter) },
        },
      );
    }
    return headers;
  }

  /** Refuses an address that has failed authentication too often, before anything is looked up. */
  async refuseFailingAddress(address: string): Promise<void> {
    if (await this.isFailing(address)) this.refuseFailures();
  }

  /** Whether an address has used up its failed authentications (nothing is taken). */
  isFailing(address: string): Promise<boolean> {
    return this.failures.exhausted(address);
  }

  /** The 429 of an address over its failed-authentication budget. */
  refuseFailures(): never {
    throw this.tooManyFailures(1);
  }

  /** Counts a failed authentication; the address's last allowed failure still gets its 401. */
  async countFailure(address: string): Promise<void> {
    const outcome = await this.failures.consume(address, 1);
    if (!outcome.allowed) throw this.tooManyFailures(outcome.retryAfter);
  }

  private tooManyFailures(retryAfter: number): ApiError {
    return new ApiError(
      429,
      'rate_limited',
      `Too many failed authentications from this address; try again in ${retryAfter} s.`,
      {
        headers: { 'Retry-After': String(retryAfter) },
      },
    );
  }
}
