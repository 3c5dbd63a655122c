/**
 * `npm run bench:fairness`: does one company saturating its own rate limits slow another
 * company down? The service runs with its default limits. A quiet company reads jobs at a steady
 * 8 requests a second (one every 125 ms, each sent on time whether or not the one before has
 * answered) alone, then while a noisy company sends find_jobs over HTTP and JSON-RPC batches of 50
 * find_jobs calls over MCP on 8 connections each. autocannon's rate sends each connection's
 * quota for a second at once, at the start of the second: the noisy company comes in bursts,
 * which is the worst case for its neighbours, but the quiet company is paced by this script,
 * since bursts of its own would measure its own queueing.
 * - saturating: 30 HTTP requests and 2 batches a second, several times what its limits allow;
 * - hammering: as fast as the load generator can, which on this 2-core machine also takes the
 *   CPU the service and the quiet company's requests need.
 * Reports the quiet company's p50/p95 in each phase and what the noisy company got.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { openDatabase } from '../src/infrastructure/db/connect';
import { loadDataset } from './dataset';
import { percentile } from './measure';
import { databaseEnv, freePort, freshDatabase, startProcess, stopProcess } from './service';
import { migrateToLatest } from '../src/database';

const QUIET_RATE = 8;
const SECONDS = 15;
const FLOOD_CONNECTIONS = 8;
const BATCH = 50;

interface Outcome {
  latencies: number[];
  statuses: Map<number, number>;
}

function load(options: autocannon.Options): Promise<Outcome> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error) => (error ? reject(error) : resolve({ latencies, statuses })));
    instance.on('response', (_client, status, _bytes, ms) => {
      latencies.push(ms);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
  });
}

/** Sends `count` GETs, one every `everyMs`, without waiting for answers (an open loop). */
async function paced(count: number, everyMs: number, urlOf: () => string, key: string): Promise<Outcome> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const start = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * everyMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const began = performance.now();
    sent.push(
      fetch(urlOf(), { headers: { authorization: `Bearer ${key}` } }).then(async (response) => {
        await response.arrayBuffer();
        latencies.push(performance.now() - began);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(sent);
  return { latencies, statuses };
}

const summary = (outcome: Outcome) => {
  const sorted = [...outcome.latencies].sort((a, b) => a - b);
  return { requests: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), statuses: Object.fromEntries(outcome.statuses) };
};

async function main(): Promise<void> {
  const target = await freshDatabase(process.env.DATABASE_URL ? 'postgres' : 'pglite');
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir ?? null });
  await migrateToLatest(db);
  const data = await loadDataset(db, 2000, () => undefined);
  await db.destroy();

  const port = await freePort();
  const service = await startProcess('src/main.ts', port, { ...databaseEnv(target), DEMO_SEED: 'false', LOG_LEVEL: 'warn', ADMIN_TOKEN: randomUUID() });
  const url = `http://127.0.0.1:${port}`;
  const [quiet, noisy] = data.companies;
  let next = 0;
  const quietLoad = () => paced(SECONDS * QUIET_RATE, 1000 / QUIET_RATE, () => `${url}/api/v1/jobs/${data.sample[next++ % data.sample.length].id}`, quiet.readKey);
  try {
    const alone = summary(await quietLoad());
    const batch = JSON.stringify(Array.from({ length: BATCH }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'find_jobs', arguments: { q: 'a', limit: 25 } } })));
    const flood = async (rates: { http?: number; batches?: number }) => {
      const [beside, http, mcp] = await Promise.all([
        quietLoad(),
        load({ url: `${url}/api/v1/jobs?q=a&limit=25`, connections: FLOOD_CONNECTIONS, overallRate: rates.http, duration: SECONDS, headers: { authorization: `Bearer ${noisy.readKey}` } }),
        load({
          url: `${url}/mcp`,
          method: 'POST',
          connections: FLOOD_CONNECTIONS,
          overallRate: rates.batches,
          duration: SECONDS,
          body: batch,
          headers: { authorization: `Bearer ${noisy.writeKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
        }),
      ]);
      const quietThen = summary(beside);
      return { quiet: quietThen, p95Ratio: Math.round((quietThen.p95 / Math.max(1, alone.p95)) * 100) / 100, noisyHttp: summary(http), noisyMcpBatchesOf50: summary(mcp) };
    };
    const saturating = await flood({ http: 30, batches: 2 });
    const hammering = await flood({});
    console.log(JSON.stringify({ quietAlone: alone, saturating, hammering }, null, 2));
  } finally {
    await stopProcess(service);
    await target.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
