/** Load generation and the figures of one case: requests/s, p50/p95/p99 latency, errors. */
import autocannon from 'autocannon';

export interface CaseResult {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** What a request cost in CPU, when measured. */
  cpu?: CpuPerRequest;
}

export interface CpuPerRequest {
  /** ms of CPU per request of the server under test (with PGlite, its database too). */
  serverMs: number;
  /** ms of CPU per request of the server's main thread, which runs its event loop. */
  eventLoopMs: number;
  /** ms of CPU per request of the local PostgreSQL server; null with PGlite. */
  databaseMs: number | null;
  loadGeneratorMs: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function summarise(
  name: string,
  latencies: number[],
  seconds: number,
  errors: number,
  non2xx: number,
): CaseResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    name,
    requests: latencies.length,
    rps: Math.round(latencies.length / seconds),
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    errors,
    non2xx,
  };
}

export interface HttpCase {
  name: string;
  method?: 'GET' | 'POST';
  /** Sent with every request besides the key and the JSON content type. */
  headers?: Record<string, string>;
  /** A new request each time: path and, for POST, the JSON body. */
  next: () => { path: string; body?: unknown };
}

/** Runs one case with autocannon and measures each response's latency itself. */
export async function runHttpCase(
  baseUrl: string,
  key: string,
  spec: HttpCase,
  options: { connections: number; seconds: number },
): Promise<CaseResult> {
  const latencies: number[] = [];
  let non2xx = 0;
  const started = Date.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: options.connections,
        duration: options.seconds,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...spec.headers },
        requests: [
          {
            method: spec.method ?? 'GET',
            setupRequest: (request) => {
              const { path, body } = spec.next();
              return { ...request, path, body: body === undefined ? undefined : JSON.stringify(body) };
            },
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      if (statusCode < 200 || statusCode >= 300) non2xx += 1;
    });
  });
  return summarise(
    spec.name,
    latencies,
    (Date.now() - started) / 1000,
    result.errors + result.timeouts,
    non2xx,
  );
}
