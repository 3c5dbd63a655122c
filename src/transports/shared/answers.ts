/** A tool's answer over HTTP, for the JSON routes and the upload routes alike. */
import type { Response } from 'express';

/** Its status and JSON body, marked when it is a replay. */
export function send(res: Response, status: number, body: unknown, replayed = false): void {
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (body === undefined) res.status(status).end();
  else res.status(status).json(body);
}
