/**
 * SIGTERM as an orchestrator sends it, to a node (`src/main.ts` in a process of its own) whose
 * webhook deliveries and chat post are stuck on receivers that hang or take 14 s to answer: the
 * process ends within SHUTDOWN_TIMEOUT_SECONDS' default (10 s) with exit code 0, and a second node
 * started on the same database delivers everything that was in flight, once each: the cut-short
 * attempts were neither counted as delivered nor as failed.
 *
 * On PostgreSQL in a database of its own (the sweep and the queue look at every row); on PGlite in
 * a data directory of its own, the second node opening it once the first has exited.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ADMIN_TOKEN } from '../support/app';
import { adminOf, companyOnNode, startNode, stopNodes, type Node } from '../support/nodes';
import { withDatabase } from '../support/scaling/measure';
import { until } from '../support/webhook-receiver';

jest.setTimeout(240_000);

const ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  CHAT_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_SWEEP_MS: '200',
  QUEUE_POLL_MS: '200',
  RATE_LIMIT_PER_MINUTE: '100000',
  RATE_LIMIT_BURST: '100000',
};
const BOUND_MS = 10_000;

/** What a receiver was sent: `answered` once it said 200, false while open or if the sender went away. */
interface Post {
  id: string;
  answered: boolean;
}

/**
 * A receiver that, until `recover()`, holds each request for `holdMs` (null: for ever) before it
 * answers 200; after, answers at once. A request whose sender goes away first is not answered.
 */
async function stuckReceiver(holdMs: number | null) {
  const posts: Post[] = [];
  let recovered = false;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const post: Post = {
        id: (req.headers['webhook-id'] as string | undefined) ?? (JSON.parse(body) as { text: string }).text,
        answered: false,
      };
      posts.push(post);
      let gone = false;
      res.on('close', () => (gone = !res.writableEnded));
      const answer = () => {
        if (gone) return;
        post.answered = true;
        res.writeHead(200).end('ok');
      };
      if (recovered) answer();
      else if (holdMs !== null) setTimeout(answer, holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    posts,
    open: () => posts.filter((post) => !post.answered).length,
    /** How many times each id was answered 200. */
    answeredTimes: () => {
      const times = new Map<string, number>();
      for (const post of posts.filter((p) => p.answered)) times.set(post.id, (times.get(post.id) ?? 0) + 1);
      return times;
    },
    recover: () => (recovered = true),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `work` with the environment of a database two nodes can use one after the other. */
async function onNodeDatabase(work: (env: Record<string, string>) => Promise<void>): Promise<void> {
  if (process.env.DATABASE_URL)
    return withDatabase(process.env.DATABASE_URL, `jms_shutdown_${process.pid}`, (url) =>
      work({ DATABASE_URL: url }),
    );
  const dataDir = mkdtempSync(path.join(tmpdir(), 'jms-shutdown-'));
  try {
    await work({ DATA_DIR: dataDir });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function exited(node: Node): Promise<number | null> {
  if (node.child.exitCode !== null) return Promise.resolve(node.child.exitCode);
  return new Promise((resolve) => node.child.once('exit', (code) => resolve(code)));
}

it('SIGTERM ends a node with deliveries stuck within 10 s, exit code 0, and the next node delivers them all once', async () => {
  const hanging = await stuckReceiver(null);
  const slow = await stuckReceiver(14_000);
  const chat = await stuckReceiver(null);
  const nodes: Node[] = [];
  try {
    await onNodeDatabase(async (database) => {
      const env = { ...ENV, ...database };
      const first = await startNode(env);
      nodes.push(first);
      const company = await companyOnNode(first, 'Shutdown Co', 'Sid Term');
      const endpoints: Record<string, string> = {};
      for (const receiver of [hanging, slow]) {
        const res = await adminOf(first)
          .post(`/admin/v1/companies/${company.id}/webhooks`)
          .send({ url: receiver.url })
          .expect(201);
        endpoints[receiver.url] = res.body.id;
      }
      await request(first.url)
        .put(`/admin/v1/companies/${company.id}/chat`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ webhook_url: chat.url, new_note: true })
        .expect(200);
      const api = (node: Node) => ({
        post: (p: string) => request(node.url).post(p).set('Authorization', `Bearer ${company.key}`),
        get: (p: string) => request(node.url).get(p).set('Authorization', `Bearer ${company.key}`),
      });
      const job = (
        await api(first).post('/api/v1/jobs').send({ operation_id: randomUUID(), customer_name: 'Tess Term' })
      ).body;
      const notes = ['First note', 'Second note', 'Third note'];
      for (const text of notes)
        await api(first)
          .post(`/api/v1/jobs/${job.id}/notes`)
          .send({ operation_id: randomUUID(), text })
          .expect(201);
      await until('a delivery in flight to each receiver', () =>
        [hanging, slow, chat].every((receiver) => receiver.open() > 0),
      );

      const signalled = Date.now();
      first.child.kill('SIGTERM');
      const code = await exited(first);
      const took = Date.now() - signalled;
      console.log(`SIGTERM with 3 deliveries stuck: the node exited ${code} after ${took} ms`);
      expect(took).toBeLessThan(BOUND_MS);
      expect(code).toBe(0);
      expect(first.output()).not.toContain('did not finish in time');
      // Nothing was answered before the stop: every delivery so far was cut short.
      for (const receiver of [hanging, slow, chat]) expect(receiver.answeredTimes().size).toBe(0);

      for (const receiver of [hanging, slow, chat]) receiver.recover();
      const second = await startNode(env);
      nodes.push(second);
      const feed = (await api(second).get('/api/v1/changes?limit=100').expect(200)).body.data.map(
        (entry: { id: string }) => entry.id,
      ) as string[];
      expect(feed.length).toBeGreaterThanOrEqual(1 + notes.length);
      await until(
        'every event at both endpoints and every note in the chat',
        () =>
          [hanging, slow].every((receiver) => feed.every((id) => receiver.answeredTimes().has(id))) &&
          notes.every((text) => [...chat.answeredTimes().keys()].some((key) => key.endsWith(text))),
        60_000,
      );
      // Once each: a second delivery of an answered post would be a double.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const receiver of [hanging, slow, chat])
        expect([...receiver.answeredTimes().values()].every((times) => times === 1)).toBe(true);
      expect(chat.answeredTimes().size).toBe(notes.length);
      // The delivery log holds the second node's attempts only: each event's first, delivered.
      for (const receiver of [hanging, slow]) {
        const attempts = (
          await adminOf(second)
            .get(`/admin/v1/companies/${company.id}/webhooks/${endpoints[receiver.url]}/attempts?limit=100`)
            .expect(200)
        ).body.data as { event_id: string; attempt: number; delivered: boolean }[];
        expect(attempts.map((a) => [a.event_id, a.attempt, a.delivered]).sort()).toEqual(
          feed.map((id) => [id, 1, true]).sort(),
        );
      }
    });
  } finally {
    await stopNodes(nodes);
    for (const receiver of [hanging, slow, chat]) await receiver.close();
  }
});

it('SIGTERM answers an upload under way 503 with Retry-After, and the node still exits 0 within 10 s', async () => {
  await onNodeDatabase(async (database) => {
    const node = await startNode({ ...ENV, ...database });
    try {
      const company = await companyOnNode(node, 'Upload Stop Co', 'Una Upload');
      const job = (
        await request(node.url)
          .post('/api/v1/jobs')
          .set('Authorization', `Bearer ${company.key}`)
          .send({ operation_id: randomUUID(), customer_name: 'Ulla Upload' })
          .expect(201)
      ).body;
      // A photo upload whose body is sent in part, then held: the rest never comes.
      const boundary = `b${randomUUID()}`;
      const answer = new Promise<{ status: number; retryAfter: string | undefined; code: string }>(
        (resolve, reject) => {
          const req = http.request(`${node.url}/api/v1/jobs/${job.id}/photos`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${company.key}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
              'content-length': String(1024 * 1024),
            },
          });
          req.on('response', (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                retryAfter: res.headers['retry-after'] as string | undefined,
                code: (JSON.parse(body) as { code: string }).code,
              }),
            );
          });
          req.on('error', reject);
          req.write(
            `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${JSON.stringify({ operation_id: randomUUID() })}\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
          );
          req.write(Buffer.alloc(64 * 1024, 1));
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const signalled = Date.now();
      node.child.kill('SIGTERM');
      expect(await answer).toEqual({ status: 503, retryAfter: '5', code: 'shutting_down' });
      const code = await exited(node);
      expect(Date.now() - signalled).toBeLessThan(BOUND_MS);
      expect(code).toBe(0);
    } finally {
      await stopNodes([node]);
    }
  });
});
