/**
 * A local webhook receiver, as an integrator would write one: it verifies every delivery with the
 * Standard Webhooks reference library (`standardwebhooks`) once it knows the secret, and keeps
 * what it was sent. `answer` decides each delivery's status and headers (and may wait first).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  headers: Record<string, string>;
  body: string;
  /** When it arrived (Date.now()). */
  at: number;
  /** What the receiver answered. */
  status: number;
  /** Whether its signature verified with the secret given to `verifyWith` (null before). */
  verified: boolean | null;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Deliveries answered 2xx. */
  received(): Delivery[];
  /** The webhook-ids of the deliveries answered 2xx, each once. */
  ids(): Set<string>;
  verifyWith(secret: string): void;
  close(): Promise<void>;
}

type Answer = number | { status: number; headers: Record<string, string> };

export async function startReceiver(answer: () => Answer | Promise<Answer> = () => 200): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  let webhook: Webhook | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = req.headers as Record<string, string>;
      let verified: boolean | null = null;
      if (webhook) {
        try {
          webhook.verify(body, headers);
          verified = true;
        } catch {
          verified = false;
        }
      }
      const given = await answer();
      const { status, headers: answerHeaders } =
        typeof given === 'number' ? { status: given, headers: {} } : given;
      deliveries.push({ headers, body, at: Date.now(), status, verified });
      res.writeHead(status, answerHeaders).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    received: () => deliveries.filter((d) => d.status < 300),
    ids: () => new Set(deliveries.filter((d) => d.status < 300).map((d) => d.headers['webhook-id'])),
    verifyWith: (secret) => (webhook = new Webhook(secret)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `probe` gives something truthy, polling. */
export async function until<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
