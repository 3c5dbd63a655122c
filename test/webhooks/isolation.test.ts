/**
 * One company's dead endpoint (connection refused) and slow one (14 s an answer, within the 15 s
 * deadline) beside a healthy one: the healthy endpoint still gets each event within a second.
 */
import { createServer } from 'node:net';
import { ADMIN_TOKEN, as, createCompany, opId, startApp, type TestApp } from '../support/app';
import { startReceiver, until } from '../support/webhook-receiver';

jest.setTimeout(60_000);

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SECONDS: '1,1,1,1,1,1,1,1,1,1', WEBHOOK_SWEEP_MS: '200' }, { deliverWebhooks: true });
});
afterAll(async () => {
  await t?.close();
});

/** A port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

it('a dead and a slow endpoint do not delay a healthy one: p95 from write to receipt under 1 s', async () => {
  const co = await createCompany(t);
  const healthy = await startReceiver();
  const slow = await startReceiver(async () => {
    await new Promise((resolve) => setTimeout(resolve, 14_000));
    return 200;
  });
  try {
    const subscribe = (url: string) => t.http.post(`/admin/v1/companies/${co.id}/webhooks`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({ url }).expect(201);
    await subscribe(`http://127.0.0.1:${await closedPort()}/hook`);
    await subscribe(slow.url);
    await subscribe(healthy.url);

    const sentAt = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const started = Date.now();
      const job = (await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: `Isolated ${i}` }).expect(201)).body;
      sentAt.set(job.id, started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await until('every event at the healthy endpoint', () => healthy.ids().size >= 40, 20_000);
    const latencies = healthy
      .received()
      .map((d) => d.at - sentAt.get((JSON.parse(d.body) as { job: { id: string } }).job.id)!)
      .sort((a, b) => a - b);
    const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1];
    console.log(`healthy endpoint beside a dead and a slow one: p50 ${latencies[Math.floor(latencies.length / 2)]} ms, p95 ${p95} ms; the slow one had ${slow.deliveries.length} answered`);
    expect(p95).toBeLessThan(1000);
    expect(slow.deliveries.length).toBeLessThanOrEqual(2);
  } finally {
    await Promise.all([healthy.close(), slow.close()]);
  }
});
