/**
 * Webhook deliveries as separate service processes make them, on a database of their own: a node
 * killed with SIGKILL in the middle of deliveries, and two nodes sharing 5,000 writes. Either way
 * the receiver, deduping by `webhook-id`, ends up with exactly the feed, each delivery verified by
 * the Standard Webhooks reference library. PostgreSQL only (a second process needs a server).
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { adminOf, companyOnNode, startNode, stopNodes, type Node } from '../support/nodes';
import { withDatabase } from '../support/scaling/measure';
import { startReceiver, until, type Receiver } from '../support/webhook-receiver';
import { describeOnPostgres } from '../support/databases';

jest.setTimeout(240_000);

const ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SECONDS: '1,1,1,1,1,1,1,1,1,1',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_SWEEP_MS: '200',
  QUEUE_MAINTENANCE_SECONDS: '2',
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_BURST: '100000',
  COMPANY_CONCURRENCY: '16',
};

/** `count` create_job calls, `parallel` at a time, spread over the nodes in turn. */
async function createJobs(nodes: Node[], key: string, count: number, parallel: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const node = nodes[i % nodes.length];
      await request(node.url)
        .post('/api/v1/jobs')
        .set('Authorization', `Bearer ${key}`)
        .send({ operation_id: randomUUID(), customer_name: `Hook ${i}` })
        .expect(201);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Every feed id, read through list_changes once the feed has settled. */
async function feedIds(node: Node, key: string, expected: number): Promise<string[]> {
  return until(
    'the whole feed',
    async () => {
      const ids: string[] = [];
      let cursor: string | null = null;
      for (;;) {
        const res: { body: { data: { id: string }[]; next_cursor: string } } = await request(node.url)
          .get(`/api/v1/changes?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
          .set('Authorization', `Bearer ${key}`)
          .expect(200);
        ids.push(...res.body.data.map((entry) => entry.id));
        if (res.body.data.length === 0) break;
        cursor = res.body.next_cursor;
      }
      return ids.length >= expected ? ids : null;
    },
    60_000,
  );
}

async function subscribe(node: Node, companyId: string, receiver: Receiver): Promise<void> {
  const endpoint = (
    await adminOf(node)
      .post(`/admin/v1/companies/${companyId}/webhooks`)
      .send({ url: receiver.url })
      .expect(201)
  ).body;
  receiver.verifyWith(endpoint.secret);
}

function expectExactlyTheFeed(receiver: Receiver, feed: string[]): number {
  expect(receiver.deliveries.every((d) => d.verified === true)).toBe(true);
  expect([...receiver.ids()].sort()).toEqual([...feed].sort());
  return receiver.received().length - receiver.ids().size;
}

describeOnPostgres('webhook deliveries across processes', () => {
  it('a node killed in the middle of deliveries: after a restart every event arrives, and the deduped set is the feed', async () => {
    await withDatabase(process.env.DATABASE_URL!, `jms_webhook_crash_${process.pid}`, async (databaseUrl) => {
      const env = { ...ENV, DATABASE_URL: databaseUrl };
      // A receiver that takes its time, so that the crash falls among deliveries.
      const receiver = await startReceiver(async () => {
        await new Promise((resolve) => setTimeout(resolve, 15));
        return 200;
      });
      let node: Node | undefined = await startNode(env);
      try {
        const company = await companyOnNode(node, 'Crash Hooks Co', 'Cora Crash');
        await subscribe(node, company.id, receiver);
        await createJobs([node], company.key, 300, 8);
        await until('deliveries under way', () => receiver.deliveries.length >= 40);
        await stopNodes([node], 'SIGKILL');
        const beforeRestart = receiver.ids().size;
        expect(beforeRestart).toBeLessThan(300);

        node = await startNode(env);
        const feed = await feedIds(node, company.key, 300);
        await until('every event', () => receiver.ids().size >= feed.length, 90_000);
        const duplicates = expectExactlyTheFeed(receiver, feed);
        console.log(
          `kill -9: ${beforeRestart} of ${feed.length} events delivered before the crash, all after the restart; ${duplicates} delivered twice`,
        );
        expect(duplicates).toBeLessThanOrEqual(1);
      } finally {
        await stopNodes([node]);
        await receiver.close();
      }
    });
  });

  it('two nodes, 5,000 writes: every event is delivered, none lost, duplicates few', async () => {
    await withDatabase(process.env.DATABASE_URL!, `jms_webhook_nodes_${process.pid}`, async (databaseUrl) => {
      const env = { ...ENV, DATABASE_URL: databaseUrl };
      const receiver = await startReceiver();
      const nodes = [await startNode(env), await startNode(env)];
      try {
        const company = await companyOnNode(nodes[0], 'Two Node Hooks Co', 'Nia Nodes');
        await subscribe(nodes[1], company.id, receiver);
        const started = Date.now();
        await createJobs(nodes, company.key, 5000, 16);
        const written = Date.now();
        const feed = await feedIds(nodes[0], company.key, 5000);
        await until('every event', () => receiver.ids().size >= feed.length, 180_000);
        const duplicates = expectExactlyTheFeed(receiver, feed);
        const seconds = (Date.now() - started) / 1000;
        console.log(
          `two nodes: ${feed.length} events written in ${((written - started) / 1000).toFixed(1)} s, all delivered ${(seconds - (written - started) / 1000).toFixed(1)} s after the last write (${(feed.length / seconds).toFixed(0)} a second overall); ${duplicates} delivered twice`,
        );
        expect(duplicates).toBeLessThanOrEqual(2);
      } finally {
        await stopNodes(nodes);
        await receiver.close();
      }
    });
  });
});
