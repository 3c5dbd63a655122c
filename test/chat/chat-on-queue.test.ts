/**
 * A node posts chat notifications from the job queue: a note's outbox row is queued with a job in
 * the note's transaction, and a failed post queues a job for the time of its next try.
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
