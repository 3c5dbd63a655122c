/**
 * New-note chat notifications: the switch, durable delivery with retries, no double posts; and
 * delivery that is fair and safe: a slow webhook delays only its own lane (one company's notes),
 * a lane's messages go out one at a time in the order they were queued, and a target that is not
 * a public address is never posted to unless the operator allows private targets.
 *
 * Every chat test is in this one file, which runs its tests one after another: a delivery worker
 * takes every due message in the table, so on PostgreSQL (one database for all test files) a
 * worker of another file would deliver, or refuse, this file's messages.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { startChatDelivery, type ChatDelivery } from '../../src/domain/chat/delivery';
import type { Config } from '../../src/platform/config';
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';

interface Receiver {
  /** Base URL; any path is accepted, so that `${url}/a` and `${url}/b` are two lanes of one server. */
  url: string;
  received: { path: string; text: string }[];
  /** Requests held open while `hold` is on; `release()` answers them. */
  held: { path: string; text: string; answer(): void }[];
  hold: boolean;
  /** How many of the next requests to answer 503. */
  failNext: number;
  /** Most requests ever open at once, per path. */
  mostAtOnce: Map<string, number>;
  release(): void;
  close(): Promise<void>;
}

async function startReceiver(options: { delayMs?: number } = {}): Promise<Receiver> {
  const open = new Map<string, number>();
  const receiver = {
    received: [],
    held: [],
    hold: false,
    failNext: 0,
    mostAtOnce: new Map(),
  } as unknown as Receiver;
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    open.set(path, (open.get(path) ?? 0) + 1);
    receiver.mostAtOnce.set(path, Math.max(receiver.mostAtOnce.get(path) ?? 0, open.get(path)!));
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const message = { path, text: (JSON.parse(body) as { text: string }).text };
      if (receiver.failNext > 0) {
        receiver.failNext -= 1;
        open.set(path, open.get(path)! - 1);
        res.writeHead(503).end('busy');
        return;
      }
      const answer = () => {
        open.set(path, open.get(path)! - 1);
        receiver.received.push(message);
        res.writeHead(200).end('ok');
      };
      if (receiver.hold) receiver.held.push({ ...message, answer });
      else setTimeout(answer, options.delayMs ?? 0);
    });
  });
  // On :: (both families), so that IPv4, IPv6 and IPv4-mapped forms of loopback all reach it.
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.release = () => {
    receiver.hold = false;
    for (const request of receiver.held.splice(0)) request.answer();
  };
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

const CHAT_ENV = { CHAT_ALLOW_PRIVATE_TARGETS: 'true', CHAT_RETRY_BASE_MS: '20', CHAT_POLL_MS: '50' };
const quiet = pino({ level: 'silent' });

function connectChat(t: TestApp, co: TestCompany, url: string | null, newNote = true) {
  return t.http
    .put(`/admin/v1/companies/${co.id}/chat`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ webhook_url: url, new_note: newNote });
}

async function newJob(t: TestApp, co: TestCompany): Promise<string> {
  return (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Lena Fischer' })
      .expect(201)
  ).body.id;
}

function addNote(t: TestApp, co: TestCompany, jobId: string, text: string) {
  return as(t, co.writeKey)
    .post(`/api/v1/jobs/${jobId}/notes`)
    .send({ operation_id: opId(), text })
    .expect(201);
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

const noteText = (message: { text: string }) => message.text.split('\n')[1];

/** Runs delivery rounds until nothing is due or `rounds` is reached, waiting out short backoffs. */
async function drain(worker: ChatDelivery, rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await worker.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
}

let t: TestApp;
let strict: TestApp;
const receivers: Receiver[] = [];
const workers: ChatDelivery[] = [];

beforeAll(async () => {
  [t, strict] = await Promise.all([startApp(CHAT_ENV), startApp({})]);
});
afterEach(async () => {
  for (const receiver of receivers) receiver.release();
  for (const worker of workers.splice(0)) await worker.stop();
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(async () => {
  await Promise.all([t.close(), strict.close()]);
});

async function receiver(options: { delayMs?: number } = {}): Promise<Receiver> {
  const started = await startReceiver(options);
  receivers.push(started);
  return started;
}

/** A delivery worker on the test app's database, as a node would run it (polling unless told). */
function worker(chat: Partial<Config['chat']> = {}, options: { poll?: boolean } = {}): ChatDelivery {
  const started = startChatDelivery(
    { db: t.db, config: { ...t.config, chat: { ...t.config.chat, ...chat } }, logger: quiet },
    options,
  );
  workers.push(started);
  return started;
}

describe('chat notification of new notes', () => {
  let co: TestCompany;
  let jobId: string;
  const hook = (chat: Receiver) => `${chat.url}/hooks/chat`;

  beforeAll(async () => {
    co = await createCompany(t);
    jobId = (
      await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Maria Alvarez', loss_type: 'water' })
        .expect(201)
    ).body.id;
  });

  it('sends nothing while the New note switch is off (the default)', async () => {
    const chat = await receiver();
    await connectChat(t, co, hook(chat), false).expect(200);
    const context = await as(t, co.readKey).get('/api/v1/context').expect(200);
    expect(context.body.chat).toEqual({ connected: true, new_note: false });
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/notes`)
      .send({ operation_id: opId(), text: 'Quiet note' })
      .expect(201);
    await drain(worker({}, { poll: false }), 3);
    expect(chat.received).toEqual([]);
  });

  it('posts the job, the author and the note once, even when the note is replayed', async () => {
    const chat = await receiver();
    await connectChat(t, co, hook(chat), true).expect(200);
    const body = { operation_id: opId(), text: 'Moisture readings are down to 12% in the kitchen.' };
    await as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/notes`).send(body).expect(201);
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/notes`)
      .send(body)
      .expect(201)
      .expect('Idempotent-Replayed', 'true');
    await drain(worker({}, { poll: false }), 3);
    expect(chat.received).toHaveLength(1);
    expect(chat.received[0].text).toContain('#1');
    expect(chat.received[0].text).toContain('Maria Alvarez');
    expect(chat.received[0].text).toContain('Avery Stone');
    expect(chat.received[0].text).toContain('Moisture readings are down to 12% in the kitchen.');
  });

  it('retries with backoff when the chat fails, and delivers once it accepts', async () => {
    const chat = await receiver();
    await connectChat(t, co, hook(chat), true).expect(200);
    chat.failNext = 2;
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/notes`)
      .send({ operation_id: opId(), text: 'Third time lucky' })
      .expect(201);
    await drain(worker({}, { poll: false }));
    expect(chat.received.map(noteText)).toEqual(['Third time lucky']);
    const row = await t
      .db('chat_outbox')
      .where({ webhook_url: hook(chat) })
      .first();
    expect(row.attempts).toBe(3);
    expect(row.delivered_at).not.toBeNull();
  });

  it('does not post a note whose write failed', async () => {
    const chat = await receiver();
    await connectChat(t, co, hook(chat), true).expect(200);
    await as(t, co.writeKey)
      .post('/api/v1/jobs/%23999/notes')
      .send({ operation_id: opId(), text: 'On no job' })
      .expect(404);
    await drain(worker({}, { poll: false }), 2);
    expect(chat.received).toEqual([]);
  });
});

describe('the chat outbox survives a restart', () => {
  it('delivers after the app restarts between the write and the delivery', async () => {
    const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(path.join(os.tmpdir(), 'jms-chat-'));
    const chat = await receiver();
    try {
      const first = await startApp(CHAT_ENV, { dataDir });
      const co = await createCompany(first);
      await connectChat(first, co, `${chat.url}/hooks/restart`, true).expect(200);
      const job = await as(first, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Tom Nguyen' })
        .expect(201);
      await as(first, co.writeKey)
        .post(`/api/v1/jobs/${job.body.id}/notes`)
        .send({ operation_id: opId(), text: 'Written before the restart' })
        .expect(201);
      await first.close();
      expect(chat.received).toEqual([]);

      const second = await startApp(CHAT_ENV, { dataDir });
      await drain(
        startChatDelivery({ db: second.db, config: second.config, logger: quiet }, { poll: false }),
        3,
      );
      await second.close();
      expect(chat.received.filter((m) => m.text.includes('Written before the restart'))).toHaveLength(1);
    } finally {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a slow webhook delays only its own company', () => {
  it("delivers a company's note promptly while another company's webhook hangs", async () => {
    const slow = await receiver();
    const fast = await receiver();
    slow.hold = true;
    const [slowCo, fastCo] = [await createCompany(t), await createCompany(t)];
    await connectChat(t, slowCo, `${slow.url}/hooks/slow`).expect(200);
    await connectChat(t, fastCo, `${fast.url}/hooks/fast`).expect(200);
    const [slowJob, fastJob] = [await newJob(t, slowCo), await newJob(t, fastCo)];
    worker();

    await addNote(t, slowCo, slowJob, 'Slow one');
    await addNote(t, slowCo, slowJob, 'Slow two');
    expect(await waitFor(() => slow.held.length > 0, 5000)).toBe(true);
    await addNote(t, fastCo, fastJob, 'Fast one');
    const written = Date.now();
    expect(await waitFor(() => fast.received.length > 0, 15_000)).toBe(true);
    const delay = Date.now() - written;
    // `REPORT_CHAT_DELAY=1 npm run -s jest -- test/chat/new-note-chat.test.ts -t promptly` prints the figure.
    if (process.env.REPORT_CHAT_DELAY)
      process.stderr.write(`\nfast company's note arrived ${delay} ms after it was written\n`);

    expect(delay).toBeLessThan(1500);
    expect(fast.received.map(noteText)).toEqual(['Fast one']);
    expect(slow.received).toEqual([]);
    expect(slow.held.map(noteText)).toEqual(['Slow one']);

    slow.release();
    expect(await waitFor(() => slow.received.length === 2, 5000)).toBe(true);
    expect(slow.received.map(noteText)).toEqual(['Slow one', 'Slow two']);
  });
});

describe('lanes: order, per-webhook limit, global cap, several nodes', () => {
  it("posts one webhook's notes one at a time in the order they were written, even with two nodes", async () => {
    const chat = await receiver({ delayMs: 30 });
    const co = await createCompany(t);
    await connectChat(t, co, `${chat.url}/hooks/ordered`).expect(200);
    const jobId = await newJob(t, co);
    const texts = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth'];
    for (const text of texts) await addNote(t, co, jobId, text);
    // Two workers on one database stand for two nodes: the lease and the lane rule live in the table.
    worker();
    worker();
    expect(await waitFor(() => chat.received.length === texts.length, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(chat.received.map(noteText)).toEqual(texts);
    expect(chat.mostAtOnce.get('/hooks/ordered')).toBe(1);
    const rows = await t.db('chat_outbox').where({ webhook_url: `${chat.url}/hooks/ordered` });
    expect(rows.map((row) => [row.attempts, Boolean(row.delivered_at)])).toEqual(texts.map(() => [1, true]));
  });

  it('keeps later notes of a webhook behind one that waits for its retry', async () => {
    const chat = await receiver();
    chat.failNext = 2;
    const co = await createCompany(t);
    await connectChat(t, co, `${chat.url}/hooks/retried`).expect(200);
    const jobId = await newJob(t, co);
    for (const text of ['Before', 'Behind', 'Last']) await addNote(t, co, jobId, text);
    worker();
    expect(await waitFor(() => chat.received.length === 3, 10_000)).toBe(true);
    expect(chat.received.map(noteText)).toEqual(['Before', 'Behind', 'Last']);
    const rows = await t
      .db('chat_outbox')
      .where({ webhook_url: `${chat.url}/hooks/retried` })
      .orderBy('created_at');
    expect(rows.map((row) => row.attempts)).toEqual([3, 1, 1]);
  });

  it('keeps at most CHAT_MAX_IN_FLIGHT posts under way on a node, and CHAT_MAX_IN_FLIGHT_PER_TARGET per webhook', async () => {
    const chat = await receiver();
    chat.hold = true;
    const lanes = ['a', 'b', 'c'];
    for (const lane of lanes) {
      const co = await createCompany(t);
      await connectChat(t, co, `${chat.url}/hooks/${lane}`).expect(200);
      const jobId = await newJob(t, co);
      await addNote(t, co, jobId, `${lane} 1`);
      await addNote(t, co, jobId, `${lane} 2`);
    }
    worker({ maxInFlight: 2, maxInFlightPerTarget: 2 });
    expect(await waitFor(() => chat.held.length === 2, 5000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(chat.held).toHaveLength(2);
    chat.release();
    expect(await waitFor(() => chat.received.length === 6, 5000)).toBe(true);
    for (const lane of lanes) expect(chat.mostAtOnce.get(`/hooks/${lane}`)).toBeLessThanOrEqual(2);
  });
});

describe('webhook targets that are not public addresses', () => {
  let strictCo: TestCompany | undefined;
  async function strictCompany(): Promise<TestCompany> {
    strictCo ??= await createCompany(strict);
    return strictCo;
  }

  // [URL, what the 422 says]: WHATWG URL writes 2130706433, 0x7f.1, 017700000001 and 127.1 as
  // 127.0.0.1 and [::ffff:127.0.0.1] as [::ffff:7f00:1]; each is checked in that canonical form.
  const refused: [string, string][] = [
    ['http://127.0.0.1:9/hook', '127.0.0.1 is a loopback address'],
    ['http://127.1/hook', '127.0.0.1 is a loopback address'],
    ['http://2130706433/hook', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1/hook', '127.0.0.1 is a loopback address'],
    ['http://017700000001/hook', '127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1/hook', '127.0.0.1 is a loopback address'],
    ['http://localhost:9/hook', 'localhost resolves to 127.0.0.1, a loopback address'],
    ['http://[::1]/hook', '::1 is a loopback address'],
    ['http://[::127.0.0.1]/hook', '::7f00:1 is not a global unicast address'],
    ['http://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1 is a loopback address, IPv4 127.0.0.1'],
    ['http://[::ffff:7f00:1]/hook', '::ffff:7f00:1 is a loopback address, IPv4 127.0.0.1'],
    ['http://[::ffff:169.254.169.254]/hook', '::ffff:a9fe:a9fe is a link-local address'],
    ['http://[::1%25lo]/hook', 'zone id'],
    ['http://[fe80::1%25eth0]/hook', 'zone id'],
    ['http://0.0.0.0/hook', '0.0.0.0 is an unspecified address'],
    ['http://0/hook', '0.0.0.0 is an unspecified address'],
    ['http://[::]/hook', ':: is an unspecified address'],
    ['http://10.1.2.3/hook', 'a private address'],
    ['http://172.16.0.1/hook', 'a private address'],
    ['http://192.168.1.1/hook', 'a private address'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
    ['http://[fe80::1]/hook', 'a link-local address'],
    ['http://[fc00::1]/hook', 'a private (unique local) address'],
    ['http://[fd12:3456::1]/hook', 'a private (unique local) address'],
    ['http://100.64.0.1/hook', 'a carrier-grade NAT address'],
    ['http://224.0.0.1/hook', 'a multicast address'],
    ['http://[ff02::1]/hook', 'a multicast address'],
    ['http://255.255.255.255/hook', 'a broadcast address'],
    ['http://192.0.2.1/hook', 'a reserved address'],
    ['http://198.18.0.1/hook', 'a reserved address'],
    ['http://240.0.0.1/hook', 'a reserved address'],
    ['http://[2001:db8::1]/hook', 'a reserved address'],
    ['http://[64:ff9b::7f00:1]/hook', 'a NAT64 address'],
    ['http://[2002:7f00:1::]/hook', 'a 6to4 address'],
    ['http://[fec0::1]/hook', 'a site-local address'],
    ['ftp://example.com/hook', 'http or https'],
  ];

  it.each(refused)('refuses %s with 422 webhook_not_allowed (%s)', async (url, reason) => {
    const co = await strictCompany();
    const res = await connectChat(strict, co, url).expect(422);
    expect(res.body.code).toBe('webhook_not_allowed');
    expect(res.body.detail).toContain(reason);
  });

  it('accepts public literal addresses, IPv4 and IPv6 (no lookup is needed for them)', async () => {
    const co = await strictCompany();
    for (const url of [
      'http://93.184.215.14/hook',
      'https://[2606:4700:4700::1111]/hook',
      'http://[::ffff:93.184.215.14]/hook',
    ]) {
      const res = await connectChat(strict, co, url).expect(200);
      expect(res.body.webhook_url).toBe(url);
    }
  });

  it('answers a zone id with 422, not 500, even when private targets are allowed', async () => {
    const co = await createCompany(t);
    for (const url of ['http://[::1%25lo]/hook', 'http://[fe80::1%25eth0]:8080/hook']) {
      const res = await connectChat(t, co, url).expect(422);
      expect(res.body.code).toBe('webhook_not_allowed');
      expect(res.body.detail).toContain('zone id');
    }
  });

  it('does not post to a private address saved under the permissive setting, once delivery is strict', async () => {
    const chat = await receiver();
    const port = new URL(chat.url).port;
    const forms = [
      '127.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '2130706433',
      '0x7f.1',
      '017700000001',
      '127.1',
      'localhost',
    ];
    for (const host of forms) {
      const co = await createCompany(t);
      const url = `http://${host}:${port}/hooks/${encodeURIComponent(host)}`;
      await connectChat(t, co, url).expect(200);
      const jobId = await newJob(t, co);
      // The control: a permissive node reaches the receiver through this form...
      await addNote(t, co, jobId, `Allowed via ${host}`);
      await worker({}, { poll: false }).runOnce();
      expect(chat.received.map(noteText)).toEqual([`Allowed via ${host}`]);
      chat.received.length = 0;
      // ...and a strict one does not, and does not try again (one attempt, failed).
      await addNote(t, co, jobId, `Refused via ${host}`);
      const strictWorker = worker({ allowPrivateTargets: false }, { poll: false });
      await drain(strictWorker, 3);
      expect(chat.received).toEqual([]);
      const row = await t.db('chat_outbox').where({ webhook_url: url }).whereNull('delivered_at').first();
      expect(row.failed_at).not.toBeNull();
      expect(row.attempts).toBe(1);
      expect(row.last_error).toMatch(
        /^target refused: .*a loopback address.*CHAT_ALLOW_PRIVATE_TARGETS is off/,
      );
    }
  });

  it('refuses a queued URL with a zone id at delivery, without posting or crashing', async () => {
    const chat = await receiver();
    const co = await createCompany(t);
    const id = 'chat_zoneid000001';
    const port = new URL(chat.url).port;
    await t.db('chat_outbox').insert({
      id,
      company_id: co.id,
      webhook_url: `http://[::1%25lo]:${port}/hook`,
      payload: JSON.stringify({ text: 'Zone\nid' }),
    });
    await worker({}, { poll: false }).runOnce();
    expect(chat.received).toEqual([]);
    const row = await t.db('chat_outbox').where({ id }).first();
    expect(row.failed_at).not.toBeNull();
    expect(row.last_error).toContain('zone id');
  });
});
