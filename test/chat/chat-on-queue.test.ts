/**
 * A node posts chat notifications from the job queue: a note's outbox row is queued with a job in
 * the note's transaction, and a failed post queues a job for the time of its next try. A company
 * whose webhook is slow holds back only its own notes: another company's arrive at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN, as, createCompany, opId, startApp, type TestApp } from '../support/app';

let t: TestApp;
let server: http.Server;
let url = '';
const received: string[] = [];
let failuresLeft = 0;

beforeAll(async () => {
  t = await startApp(
    { CHAT_ALLOW_PRIVATE_TARGETS: 'true', CHAT_RETRY_BASE_MS: '100', QUEUE_POLL_MS: '100' },
    { deliverChat: true },
  );
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(503).end();
        return;
      }
      received.push(JSON.parse(body).text);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
}

it('posts a new note without anyone asking, and retries a failed post at its time', async () => {
  const co = await createCompany(t);
  await t.http
    .put(`/admin/v1/companies/${co.id}/chat`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ webhook_url: url, new_note: true })
    .expect(200);
  const job = (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Quinn Queue' })
      .expect(201)
  ).body;

  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/notes`)
    .send({ operation_id: opId(), text: 'First through the queue' })
    .expect(201);
  expect(await until(() => received.some((text) => text.endsWith('First through the queue')), 10_000)).toBe(
    true,
  );

  failuresLeft = 2;
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/notes`)
    .send({ operation_id: opId(), text: 'Second after two failures' })
    .expect(201);
  expect(await until(() => received.some((text) => text.endsWith('Second after two failures')), 15_000)).toBe(
    true,
  );
  expect(failuresLeft).toBe(0);
  // The worker records the delivery after the webhook has answered: wait for that write.
  const outboxRow = () =>
    t
      .db('chat_outbox')
      .where({ company_id: co.id })
      .whereRaw("payload->>'text' like ?", ['%Second after two failures'])
      .first();
  const deadline = Date.now() + 10_000;
  while ((await outboxRow()).delivered_at === null && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const row = await outboxRow();
  expect(row).toMatchObject({ attempts: 3, last_error: null });
  expect(row.delivered_at).not.toBeNull();
}, 60_000);

it("delivers another company's note within 2 s while one company's webhook takes 8 s a post, 12 notes queued", async () => {
  const arrived = new Map<string, number>();
  const slowPosts: string[] = [];
  const slowServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      slowPosts.push(JSON.parse(body).text);
      setTimeout(() => res.writeHead(200).end('ok'), 8000);
    });
  });
  const fastServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      arrived.set(JSON.parse(body).text, Date.now());
      res.writeHead(200).end('ok');
    });
  });
  const listen = async (server: http.Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  };
  try {
    const [slowUrl, fastUrl] = [await listen(slowServer), await listen(fastServer)];
    const [slowCo, fastCo] = [await createCompany(t), await createCompany(t)];
    const connect = (id: string, webhook: string) =>
      t.http
        .put(`/admin/v1/companies/${id}/chat`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ webhook_url: webhook, new_note: true })
        .expect(200);
    await connect(slowCo.id, slowUrl);
    await connect(fastCo.id, fastUrl);
    const newJob = async (key: string) =>
      (
        await as(t, key)
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), customer_name: 'Sam Slowly' })
          .expect(201)
      ).body.id as string;
    const [slowJob, fastJob] = [await newJob(slowCo.writeKey), await newJob(fastCo.writeKey)];
    const addNote = (key: string, jobId: string, text: string) =>
      as(t, key).post(`/api/v1/jobs/${jobId}/notes`).send({ operation_id: opId(), text }).expect(201);

    for (let i = 1; i <= 12; i++) await addNote(slowCo.writeKey, slowJob, `Slow ${i}`);
    expect(await until(() => slowPosts.length > 0, 5000)).toBe(true);
    for (let round = 1; round <= 2; round++) {
      const text = `Fast ${round}`;
      await addNote(fastCo.writeKey, fastJob, text);
      const written = Date.now();
      expect(await until(() => [...arrived.keys()].some((k) => k.endsWith(text)), 10_000)).toBe(true);
      const delay = [...arrived.entries()].find(([k]) => k.endsWith(text))![1] - written;
      // `REPORT_CHAT_DELAY=1` prints the figure.
      if (process.env.REPORT_CHAT_DELAY)
        process.stderr.write(`\n${text} arrived ${delay} ms after add_note\n`);
      expect(delay).toBeLessThan(2000);
      // The slow company's lane is still busy with its first notes, one at a time.
      expect(slowPosts.length).toBeLessThan(12);
    }
  } finally {
    for (const server of [slowServer, fastServer]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}, 60_000);
