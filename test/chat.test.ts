/** New-note chat notifications: the switch, durable delivery with retries, no double posts. */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { startChatDelivery, type ChatDelivery } from '../src/chat/delivery';
import { ADMIN_TOKEN, as, createCompany, opId, startApp, type TestApp, type TestCompany } from './support/app';

interface Receiver {
  url: string;
  received: { text: string }[];
  /** How many of the next requests to answer 500. */
  failNext: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver = { received: [] as { text: string }[], failNext: 0 } as Receiver;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (receiver.failNext > 0) {
        receiver.failNext -= 1;
        res.writeHead(500).end('not now');
        return;
      }
      receiver.received.push(JSON.parse(body));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/chat`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

const CHAT_ENV = { CHAT_ALLOW_PRIVATE_TARGETS: 'true', CHAT_RETRY_BASE_MS: '20' };

function delivery(t: TestApp): ChatDelivery {
  return startChatDelivery({ db: t.db, config: t.config, logger: pino({ level: 'silent' }) }, { poll: false });
}

function connectChat(t: TestApp, co: TestCompany, url: string | null, newNote: boolean) {
  return t.http.put(`/admin/v1/companies/${co.id}/chat`).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({ webhook_url: url, new_note: newNote });
}

/** Runs delivery rounds until nothing is due or `rounds` is reached, waiting out short backoffs. */
async function drain(worker: ChatDelivery, rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await worker.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
}

describe('chat notification of new notes', () => {
  let t: TestApp;
  let co: TestCompany;
  let receiver: Receiver;
  let jobId: string;

  beforeAll(async () => {
    t = await startApp(CHAT_ENV);
    co = await createCompany(t);
    receiver = await startReceiver();
    jobId = (await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Maria Alvarez', loss_type: 'water' }).expect(201)).body.id;
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.failNext = 0;
  });

  it('sends nothing while the New note switch is off (the default)', async () => {
    await connectChat(t, co, receiver.url, false).expect(200);
    const context = await as(t, co.readKey).get('/api/v1/context').expect(200);
    expect(context.body.chat).toEqual({ connected: true, new_note: false });
    await as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/notes`).send({ operation_id: opId(), text: 'Quiet note' }).expect(201);
    await drain(delivery(t), 3);
    expect(receiver.received).toEqual([]);
  });

  it('posts the job, the author and the note once, even when the note is replayed', async () => {
    await connectChat(t, co, receiver.url, true).expect(200);
    const body = { operation_id: opId(), text: 'Moisture readings are down to 12% in the kitchen.' };
    await as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/notes`).send(body).expect(201);
    await as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/notes`).send(body).expect(201).expect('Idempotent-Replayed', 'true');
    await drain(delivery(t), 3);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].text).toContain('#1');
    expect(receiver.received[0].text).toContain('Maria Alvarez');
    expect(receiver.received[0].text).toContain('Avery Stone');
    expect(receiver.received[0].text).toContain('Moisture readings are down to 12% in the kitchen.');
  });

  it('retries with backoff when the chat fails, and delivers once it accepts', async () => {
    await connectChat(t, co, receiver.url, true).expect(200);
    receiver.failNext = 2;
    await as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/notes`).send({ operation_id: opId(), text: 'Third time lucky' }).expect(201);
    await drain(delivery(t));
    expect(receiver.received.map((m) => m.text.split('\n')[1])).toEqual(['Third time lucky']);
    const row = await t.db('chat_outbox').whereNotNull('delivered_at').orderBy('created_at', 'desc').first();
    expect(row.attempts).toBe(3);
  });

  it('does not post a note whose write failed', async () => {
    await connectChat(t, co, receiver.url, true).expect(200);
    await as(t, co.writeKey).post('/api/v1/jobs/%23999/notes').send({ operation_id: opId(), text: 'On no job' }).expect(404);
    await drain(delivery(t), 2);
    expect(receiver.received).toEqual([]);
  });

  it('refuses a webhook on a private or loopback address unless allowed', async () => {
    const strict = await startApp({});
    const other = await createCompany(strict);
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
      const res = await connectChat(strict, other, url, true).expect(422);
      expect(res.body.code).toBe('webhook_not_allowed');
    }
    await strict.close();
  });
});

describe('the chat outbox survives a restart', () => {
  it('delivers after the app restarts between the write and the delivery', async () => {
    const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(path.join(os.tmpdir(), 'jms-chat-'));
    const receiver = await startReceiver();
    try {
      const first = await startApp(CHAT_ENV, { dataDir });
      const co = await createCompany(first);
      await connectChat(first, co, receiver.url, true).expect(200);
      const job = await as(first, co.writeKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Tom Nguyen' }).expect(201);
      await as(first, co.writeKey).post(`/api/v1/jobs/${job.body.id}/notes`).send({ operation_id: opId(), text: 'Written before the restart' }).expect(201);
      await first.close();
      expect(receiver.received).toEqual([]);

      const second = await startApp(CHAT_ENV, { dataDir });
      await drain(delivery(second), 3);
      await second.close();
      expect(receiver.received.filter((m) => m.text.includes('Written before the restart'))).toHaveLength(1);
    } finally {
      await receiver.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
