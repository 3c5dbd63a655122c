/**
 * Between Express and the SDK's web-standard MCP handler: a Request made from what Express has
 * already read (the body is handed over parsed), and the handler's Response written back as it
 * comes, so that an event stream (progress, subscriptions) reaches the client event by event.
 */
import type { Request, Response } from 'express';

export function webRequestOf(req: Request, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const each of value) headers.append(name, each);
  }
  return new globalThis.Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, {
    method: req.method,
    headers,
    signal,
  });
}

export async function sendWebResponse(answer: globalThis.Response, res: Response): Promise<void> {
  res.status(answer.status);
  answer.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!answer.body) {
    res.end();
    return;
  }
  const reader = answer.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
      // An event stream's events go out one by one, not when a buffer fills.
      (res as Response & { flush?: () => void }).flush?.();
    }
  } finally {
    res.end();
  }
}
