/**
 * `npm run bench:webhooks [-- --db postgres|pglite] [-- --seconds 20]`: how fast the change feed
 * reaches one local webhook receiver. The service runs on a fresh database with one endpoint.
 * - Paced: 100 create_job calls a second (each sent on time, whether or not the one before has
 *   answered); for each event, the time from sending its write to its delivery, verified by the
 *   Standard Webhooks reference library. Target: p95 under 500 ms.
 * - Burst: 2,000 creates as fast as 10 connections go; deliveries a second, from the first
 *   write to the last delivery.
 * Exits 1 when the target is missed, with the misses printed last.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/infrastructure/db/connect';
import { migrateToLatest } from '../src/database';
import { startReceiver, until, type Receiver } from '../test/support/webhook-receiver';
import { percentile } from './measure';
import { databaseEnv, freePort, freshDatabase, startProcess, stopProcess } from './service';

const RATE = 100;
const BURST = 2000;
const BURST_CONNECTIONS = 10;
const TARGET_P95_MS = 500;

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { db: { type: 'string' }, seconds: { type: 'string' } } });
  const kind = (values.db ?? (process.env.DATABASE_URL ? 'postgres' : 'pglite')) as 'postgres' | 'pglite';
  const seconds = Number(values.seconds ?? 20);
  const target = await freshDatabase(kind);
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir ?? null });
  await migrateToLatest(db);
  await db.destroy();

  const adminToken = randomUUID();
  const port = await freePort();
  const service = await startProcess('src/main.ts', port, {
    ...databaseEnv(target),
    DEMO_SEED: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_BURST: '10000000',
    COMPANY_CONCURRENCY: '64',
    ADMIN_TOKEN: adminToken,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  });
  const base = `http://127.0.0.1:${port}`;
  const receiver = await startReceiver();
  const misses: string[] = [];
  try {
    const key = await companyWithEndpoint(base, adminToken, receiver);
    const create = (name: string) =>
      fetch(`${base}/api/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ operation_id: randomUUID(), customer_name: name }),
      }).then(async (res) => {
        if (res.status !== 201) throw new Error(`create_job answered ${res.status}`);
        return ((await res.json()) as { id: string }).id;
      });

    // Paced: one write every 1/RATE s, on time.
    const sentAt = new Map<string, number>();
    const writes: Promise<void>[] = [];
    const started = Date.now();
    for (let i = 0; i < RATE * seconds; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const at = Date.now();
      writes.push(create(`Paced ${i}`).then((id) => void sentAt.set(id, at)));
    }
    await Promise.all(writes);
    await until('every paced event', () => receiver.ids().size >= RATE * seconds, 120_000);
    const latencies = receiver
      .received()
      .map((d) => d.at - sentAt.get((JSON.parse(d.body) as { job: { id: string } }).job.id)!)
      .sort((a, b) => a - b);
    const unverified = receiver.deliveries.filter((d) => d.verified !== true).length;
    const p50 = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    console.log(
      `paced ${RATE} writes/s for ${seconds} s (${kind}): ${latencies.length} events, write to delivery p50 ${p50} ms, p95 ${p95} ms, p99 ${percentile(latencies, 99)} ms; ${unverified} not verified`,
    );
    if (p95 >= TARGET_P95_MS)
      misses.push(`MISSED delivery p95 < ${TARGET_P95_MS} ms at ${RATE} writes/s: ${p95} ms`);
    if (unverified > 0) misses.push(`MISSED every delivery verified: ${unverified} were not`);

    // Burst: as fast as BURST_CONNECTIONS connections write.
    const before = receiver.ids().size;
    const burstStarted = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: BURST_CONNECTIONS }, async () => {
        for (let i = next++; i < BURST; i = next++) await create(`Burst ${i}`);
      }),
    );
    const written = Date.now();
    await until('every burst event', () => receiver.ids().size >= before + BURST, 180_000);
    const done = Date.now();
    console.log(
      `burst of ${BURST} writes: written in ${((written - burstStarted) / 1000).toFixed(1)} s (${Math.round(BURST / ((written - burstStarted) / 1000))}/s), ` +
        `all delivered ${((done - burstStarted) / 1000).toFixed(1)} s after the first write: ${Math.round(BURST / ((done - burstStarted) / 1000))} deliveries a second; ` +
        `${receiver.received().length - receiver.ids().size} delivered twice`,
    );
  } finally {
    await receiver.close();
    await stopProcess(service);
    await target.cleanup();
  }
  for (const miss of misses) console.log(miss);
  if (misses.length === 0) console.log(`met    delivery p95 < ${TARGET_P95_MS} ms at ${RATE} writes/s`);
  return misses.length === 0 ? 0 : 1;
}

/** A company, its write key, and one endpoint at the receiver (which learns its secret). */
async function companyWithEndpoint(base: string, adminToken: string, receiver: Receiver): Promise<string> {
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${base}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const company = await admin('/companies', { name: 'Webhook Bench Co', credits: 0 });
  const person = await admin(`/companies/${company.id}/team`, { name: 'Bea Bench', role: 'Owner' });
  const { key } = await admin(`/companies/${company.id}/keys`, { person_id: person.id, scope: 'write' });
  const endpoint = await admin(`/companies/${company.id}/webhooks`, { url: receiver.url });
  receiver.verifyWith(endpoint.secret);
  return key;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
