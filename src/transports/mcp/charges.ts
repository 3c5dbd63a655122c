/**
 * MCP's rate limit: each tool call or resource read (a tool's work under another name) is one
 * unit of the key's budget, whether it came alone or in a batch; every other message is one unit
 * of the protocol allowance (platform/rate-limit).
 */
import type { NextFunction, Request, Response } from 'express';
import { invalidRequest } from '../../platform/errors';
import type { RateLimiter } from '../../platform/rate-limit';
import { callerOf, charge } from '../shared/credentials';

const WORK_METHODS = new Set(['tools/call', 'resources/read']);

/** Protocol versions from which JSON-RPC batches are no longer part of MCP. */
const FIRST_VERSION_WITHOUT_BATCHES = '2025-06-18';

export function chargeMcpMessages(limiter: RateLimiter) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const batch = Array.isArray(req.body);
    const version = req.headers['mcp-protocol-version'];
    if (batch && typeof version === 'string' && version >= FIRST_VERSION_WITHOUT_BATCHES) {
      throw invalidRequest([
        {
          path: '/body',
          message: `is a JSON-RPC batch, which MCP ${version} does not have: send one message per request`,
        },
      ]);
    }
    const messages: unknown[] = batch ? req.body : [req.body];
    const toolCalls = messages.filter((m) =>
      WORK_METHODS.has(String((m as { method?: unknown } | null)?.method)),
    ).length;
    const keyId = callerOf(res).keyId;
    if (messages.length > toolCalls)
      await charge(res, limiter, 'protocol', keyId, messages.length - toolCalls);
    if (toolCalls > 0) await charge(res, limiter, 'work', keyId, toolCalls);
    next();
  };
}
