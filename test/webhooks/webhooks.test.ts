/**
 * Webhook endpoints through the admin API, with a local receiver that checks every delivery with
 * the Standard Webhooks reference library (`standardwebhooks`), as an integrator would; and a dead and a
 * slow endpoint beside a healthy one.
 */
import { Webhook } from 'standardwebhooks';
import { createServer } from 'node:net';
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { startReceiver, until, type Receiver } from '../support/webhook-receiver';
import { pino } from 'pino';
import { sweepStorage } from '../../src/node-services';

/** A port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let t: TestApp;
let co: TestCompany;
const admin = (req: ReturnType<TestApp['http']['get']>) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
const hooks = () => `/admin/v1/companies/${co.id}/webhooks`;

beforeAll(async () => {
  // One app delivers for the whole file: on PostgreSQL every node's sweep finds every endpoint of
  // the database, so a second app with other settings would deliver these tests' events too.
  t = await startApp(
    { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SECONDS: '0.3,0.3,0.3', WEBHOOK_SWEEP_MS: '100' },
    { deliverWebhooks: true },
  );
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  co = await createCompany(t);
});

async function subscribe(url: string, fields: Record<string, unknown> = {}) {
  return (
    await admin(t.http.post(hooks()))
      .send({ url, ...fields })
      .expect(201)
  ).body as { id: string; secret: string; status: string };
}

async function createJob(name: string) {
  return (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: name })
      .expect(201)
  ).body as { id: string; job_number: number };
}

const opened: Receiver[] = [];
/** A receiver for this test, closed once it ends. */
async function openReceiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const receiver = await startReceiver(...args);
  opened.push(receiver);
  return receiver;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((receiver) => receiver.close()));
});

async function feed() {
  await feedSettled(t);
  return (await as(t, co.readKey).get('/api/v1/changes?limit=100').expect(200)).body.data as {
    id: string;
    action: string;
    kind: string;
    person: unknown;
  }[];
}

describe('admin_create_webhook, admin_list_webhooks, admin_update_webhook, admin_delete_webhook, admin_rotate_webhook_secret, admin_replay_webhook, admin_list_webhook_attempts: webhook deliveries', () => {
  it('signs each feed entry as Standard Webhooks describes, with the same id and body as list_changes', async () => {
    const receiver = await openReceiver();
    const endpoint = await subscribe(receiver.url, { description: 'Our CRM' });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint.status).toBe('active');
    const listed = (await admin(t.http.get(hooks())).expect(200)).body.data;
    expect(listed).toEqual([
      expect.objectContaining({ id: endpoint.id, description: 'Our CRM', events: [] }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');

    await createJob('Signed Sam');
    const [delivery] = await until('the delivery', () =>
      receiver.deliveries.length > 0 ? receiver.deliveries : null,
    );
    const verified = new Webhook(endpoint.secret).verify(delivery.body, delivery.headers);
    const [entry] = await feed();
    expect(verified).toEqual(entry);
    expect(delivery.headers['webhook-id']).toBe(entry.id);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    const verify = (secret: string, body: string, headers: Record<string, string>) => () =>
      new Webhook(secret).verify(body, headers);
    expect(
      verify(endpoint.secret, delivery.body.replace('Signed Sam', 'Signed Sal'), delivery.headers),
    ).toThrow();
    const old = String(Number(delivery.headers['webhook-timestamp']) - 3600);
    expect(
      verify(endpoint.secret, delivery.body, { ...delivery.headers, 'webhook-timestamp': old }),
    ).toThrow();
    expect(
      verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, delivery.body, delivery.headers),
    ).toThrow();
  });

  it('retries a receiver that is down and delivers on the 4th attempt exactly once, with every attempt in the log', async () => {
    let answered = 0;
    const receiver = await openReceiver(() => (++answered <= 3 ? 503 : 200));
    const endpoint = await subscribe(receiver.url);
    await createJob('Retry Rita');
    await until('four attempts', () => receiver.deliveries.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.deliveries).toHaveLength(4);
    expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1);
    const log = (await admin(t.http.get(`${hooks()}/${endpoint.id}/attempts`)).expect(200)).body.data as {
      attempt: number;
      status_code: number;
      delivered: boolean;
      error: string | null;
      latency_ms: number;
    }[];
    expect(log.map((a) => [a.attempt, a.status_code, a.delivered])).toEqual([
      [4, 200, true],
      [3, 503, false],
      [2, 503, false],
      [1, 503, false],
    ]);
    expect(log[1].error).toBe('the endpoint answered 503');
    const [state] = (await admin(t.http.get(hooks())).expect(200)).body.data;
    expect(state).toMatchObject({ status: 'active', failing_since: null, next_attempt_at: null, waiting: 0 });
  });

  it('counts a redirect as a failed attempt and does not follow it', async () => {
    const target = await openReceiver();
    const redirecting = await openReceiver(() => ({ status: 302, headers: { location: target.url } }));
    const endpoint = await subscribe(redirecting.url);
    await createJob('Moved Mo');
    await until(
      'the first attempt',
      async () =>
        (await admin(t.http.get(`${hooks()}/${endpoint.id}/attempts`)).expect(200)).body.data.length > 0,
    );
    const [attempt] = (await admin(t.http.get(`${hooks()}/${endpoint.id}/attempts`)).expect(200)).body.data;
    expect(attempt).toMatchObject({
      attempt: 1,
      status_code: 302,
      delivered: false,
      error: 'the endpoint answered 302',
    });
    expect(target.deliveries).toHaveLength(0);
  });

  it('keeps feed order per endpoint and sends only the kinds and actions it asked for', async () => {
    const all = await openReceiver();
    const notesOnly = await openReceiver();
    await subscribe(all.url);
    const notesEndpoint = await subscribe(notesOnly.url, { events: ['notes'] });
    const job = await createJob('Order Olga');
    for (const text of ['first', 'second', 'third']) {
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${job.id}/notes`)
        .send({ operation_id: opId(), text })
        .expect(201);
    }
    await createJob('Not A Note');
    const entries = await feed();
    await until(
      'every entry',
      () => all.deliveries.length >= entries.length && notesOnly.deliveries.length >= 3,
    );
    expect(all.deliveries.map((d) => d.headers['webhook-id'])).toEqual(entries.map((e) => e.id));
    expect(notesOnly.deliveries.map((d) => d.headers['webhook-id'])).toEqual(
      entries.filter((e) => e.kind === 'notes').map((e) => e.id),
    );
    // Its place moves past what it does not want, so that looking for what waits stays short.
    const place = async () =>
      String(
        (await t.db('webhook_endpoints').where({ id: notesEndpoint.id }).first('cursor_seq')).cursor_seq,
      );
    await until(
      'the notes-only endpoint past the last entry',
      async () => (await place()) === entries.at(-1)!.id,
    );
  });

  it('signs with both secrets during a rotation grace period, then with the new one only', async () => {
    const receiver = await openReceiver();
    const endpoint = await subscribe(receiver.url);
    const rotated = (
      await admin(t.http.post(`${hooks()}/${endpoint.id}/rotate-secret`))
        .send({ grace_seconds: 2 })
        .expect(200)
    ).body;
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previous_secret_expires_at)).toBeGreaterThan(Date.now());
    await createJob('Grace Gil');
    const [during] = await until('a delivery in the grace period', () =>
      receiver.deliveries.length > 0 ? receiver.deliveries : null,
    );
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.secret).verify(during.body, during.headers)).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(during.body, during.headers)).not.toThrow();

    await new Promise((resolve) => setTimeout(resolve, 2100));
    await createJob('After Ada');
    const after = await until('a delivery after it', () => receiver.deliveries[1]);
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(rotated.secret).verify(after.body, after.headers)).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(after.body, after.headers)).toThrow();
  });

  it('disables an endpoint that failed for its whole retry window, says so in the listing and the feed, and catches up once resumed', async () => {
    let up = false;
    const receiver = await openReceiver(() => (up ? 200 : 500));
    const endpoint = await subscribe(receiver.url);
    await createJob('Down Dora');
    const disabled = await until('the endpoint disabled', async () => {
      const [state] = (await admin(t.http.get(hooks())).expect(200)).body.data;
      return state.status === 'disabled' ? state : null;
    });
    expect(receiver.deliveries).toHaveLength(4); // the first attempt and 3 retries
    // Waiting: the job's entry, and the entry saying the endpoint was disabled.
    expect(disabled).toMatchObject({
      disabled_reason: 'the endpoint answered 500',
      waiting: 2,
      next_attempt_at: null,
    });
    const entry = (await feed()).find((e) => e.action === 'webhook.disabled');
    expect(entry).toMatchObject({
      kind: 'changes',
      person: null,
      data: {
        action: 'webhook.disabled',
        webhook: { id: endpoint.id, url: receiver.url },
        reason: 'the endpoint answered 500',
      },
    });

    await createJob('While Disabled');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.deliveries).toHaveLength(4);
    up = true;
    await admin(t.http.patch(`${hooks()}/${endpoint.id}`))
      .send({ status: 'active' })
      .expect(200);
    await until('the backlog', () => receiver.received().length >= 3);
    // The disabled entry itself is an event too: the receiver learns it was disabled.
    const ids = receiver.received().map((d) => d.headers['webhook-id']);
    expect(ids).toEqual((await feed()).slice(0, ids.length).map((e) => e.id));
  });

  it('holds deliveries while paused and sends them in order once resumed', async () => {
    const receiver = await openReceiver();
    const endpoint = await subscribe(receiver.url);
    await admin(t.http.patch(`${hooks()}/${endpoint.id}`))
      .send({ status: 'paused' })
      .expect(200);
    await createJob('Paused Pia');
    await createJob('Paused Pete');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.deliveries).toHaveLength(0);
    const [paused] = (await admin(t.http.get(hooks())).expect(200)).body.data;
    expect(paused).toMatchObject({ status: 'paused', waiting: 2 });
    await admin(t.http.patch(`${hooks()}/${endpoint.id}`))
      .send({ status: 'active' })
      .expect(200);
    await until('both', () => receiver.deliveries.length >= 2);
    expect(receiver.deliveries.map((d) => d.headers['webhook-id'])).toEqual((await feed()).map((e) => e.id));
  });

  it('replays one event, or every event since a feed cursor or a moment, with their own ids', async () => {
    const receiver = await openReceiver();
    const endpoint = await subscribe(receiver.url);
    await createJob('Replay One');
    await createJob('Replay Two');
    await until('both', () => receiver.deliveries.length >= 2);
    const [first, second] = await feed();

    const one = await admin(t.http.post(`${hooks()}/${endpoint.id}/replay`))
      .send({ event_id: first.id })
      .expect(202);
    expect(one.body).toEqual({ events: 1 });
    await until('the resend', () => receiver.deliveries.length >= 3);
    expect(receiver.deliveries[2].headers['webhook-id']).toBe(first.id);

    const page = (await as(t, co.readKey).get('/api/v1/changes?limit=1').expect(200)).body;
    const since = await admin(t.http.post(`${hooks()}/${endpoint.id}/replay`))
      .send({ since_cursor: page.next_cursor })
      .expect(202);
    expect(since.body).toEqual({ events: 1 });
    await until('the replay', () => receiver.deliveries.length >= 4);
    expect(receiver.deliveries[3].headers['webhook-id']).toBe(second.id);
    const log = (
      await admin(t.http.get(`${hooks()}/${endpoint.id}/attempts?event_id=${first.id}`)).expect(200)
    ).body.data;
    expect(log.map((a: { replay: boolean }) => a.replay)).toEqual([true, false]);

    // From a moment: every event at or after it, in feed order.
    const moment = new Date(
      Date.parse((await as(t, co.readKey).get('/api/v1/changes?limit=1').expect(200)).body.data[0].at),
    ).toISOString();
    const fromMoment = await admin(t.http.post(`${hooks()}/${endpoint.id}/replay`))
      .send({ since: moment })
      .expect(202);
    expect(fromMoment.body).toEqual({ events: 2 });
    await until('the replay from a moment', () => receiver.deliveries.length >= 6);
    expect(receiver.deliveries.slice(4).map((d) => d.headers['webhook-id'])).toEqual([first.id, second.id]);
  });

  it('keeps the delivery log 7 days: the hourly sweep deletes older attempts', async () => {
    const receiver = await openReceiver();
    const endpoint = await subscribe(receiver.url);
    await createJob('Log Lou');
    await createJob('Log Lia');
    await until('both', () => receiver.deliveries.length >= 2);
    const [newest, oldest] = (await admin(t.http.get(`${hooks()}/${endpoint.id}/attempts`)).expect(200)).body
      .data;
    await t
      .db('webhook_attempts')
      .where({ id: oldest.id })
      .update({ at: new Date(Date.now() - 7 * 86_400_000 - 60_000) });
    await sweepStorage(t.db, t.media, t.config, pino({ level: 'silent' }));
    expect(
      (await admin(t.http.get(`${hooks()}/${endpoint.id}/attempts`)).expect(200)).body.data.map(
        (a: { id: string }) => a.id,
      ),
    ).toEqual([newest.id]);
  });

  it("refuses bad subscriptions and other companies' endpoints, and removes an endpoint with its log", async () => {
    const receiver = await openReceiver();
    const bad = await admin(t.http.post(hooks()))
      .send({ url: receiver.url, events: ['job.created', 'job.exploded'] })
      .expect(400);
    expect(bad.body.errors[0]).toMatchObject({
      path: '/body/events',
      message: expect.stringContaining('job.exploded'),
    });
    await admin(t.http.post(hooks())).send({ url: 'ftp://example.com/hook' }).expect(422);
    await admin(t.http.post(hooks())).send({ url: receiver.url, color: 'red' }).expect(400);
    await t.http.post(hooks()).send({ url: receiver.url }).expect(401);
    await as(t, co.writeKey).post(hooks()).send({ url: receiver.url }).expect(401);

    const endpoint = await subscribe(receiver.url);
    const other = await createCompany(t);
    for (const path of [
      `/admin/v1/companies/${other.id}/webhooks/${endpoint.id}/attempts`,
      `/admin/v1/companies/${other.id}/webhooks/${endpoint.id}/replay`,
    ]) {
      const req = path.endsWith('replay')
        ? admin(t.http.post(path)).send({ event_id: '1' })
        : admin(t.http.get(path));
      expect((await req.expect(404)).body.code).toBe('not_found');
    }
    await admin(t.http.delete(`/admin/v1/companies/${other.id}/webhooks/${endpoint.id}`)).expect(404);
    await admin(t.http.post(`${hooks()}/${endpoint.id}/replay`))
      .send({ event_id: '1', since: new Date().toISOString() })
      .expect(400);

    for (let i = 1; i < 10; i++) await subscribe(receiver.url);
    expect((await admin(t.http.post(hooks())).send({ url: receiver.url }).expect(422)).body.code).toBe(
      'too_many_webhooks',
    );
    await admin(t.http.delete(`${hooks()}/${endpoint.id}`)).expect(204);
    await admin(t.http.get(`${hooks()}/${endpoint.id}/attempts`)).expect(404);
    expect((await admin(t.http.get(hooks())).expect(200)).body.data).toHaveLength(9);
  });
});

describe("one company's endpoints side by side", () => {
  it('a dead and a slow endpoint (14 s an answer) do not delay a healthy one: p95 from write to receipt under 1 s', async () => {
    const healthy = await openReceiver();
    const slow = await openReceiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 14_000).unref()); // not to hold jest open once the test is over
      return 200;
    });
    const subscribe = (url: string) =>
      t.http
        .post(`/admin/v1/companies/${co.id}/webhooks`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ url })
        .expect(201);
    await subscribe(`http://127.0.0.1:${await closedPort()}/hook`);
    await subscribe(slow.url);
    await subscribe(healthy.url);

    const sentAt = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const started = Date.now();
      const job = (
        await as(t, co.writeKey)
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), customer_name: `Isolated ${i}` })
          .expect(201)
      ).body;
      sentAt.set(job.id, started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The dead endpoint is soon disabled, and the healthy one is told so too: only the jobs count.
    const created = () =>
      healthy.received().filter((d) => (JSON.parse(d.body) as { action: string }).action === 'job.created');
    await until('every job at the healthy endpoint', () => created().length >= 40, 20_000);
    const latencies = created()
      .map((d) => d.at - sentAt.get((JSON.parse(d.body) as { job: { id: string } }).job.id)!)
      .sort((a, b) => a - b);
    const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1];
    console.log(
      `healthy endpoint beside a dead and a slow one: p50 ${latencies[Math.floor(latencies.length / 2)]} ms, p95 ${p95} ms; the slow one had ${slow.deliveries.length} answered`,
    );
    expect(p95).toBeLessThan(1000);
    expect(slow.deliveries.length).toBeLessThanOrEqual(2);
  });
});

describe('webhook addresses', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startApp();
  });
  afterAll(async () => {
    await strict?.close();
  });

  it("takes only https URLs with a public host, under the chat webhook's rules", async () => {
    const company = await createCompany(strict);
    const post = (url: string) =>
      strict.http
        .post(`/admin/v1/companies/${company.id}/webhooks`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ url });
    for (const url of [
      'http://example.com/hook',
      'https://127.0.0.1/hook',
      'https://10.0.0.8/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest',
      'https://0x7f.1/hook',
    ]) {
      const res = await post(url).expect(422);
      expect(res.body.code).toBe('webhook_not_allowed');
    }
  });
});
