/**
 * What an operator watches: the change feed's lag in /healthz, and request logs without
 * customers' data, nor assistants' secrets. (The purge of idempotency records is in test/pipeline/idempotency-retention.test.ts.)
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/transports/http/app';
import { ADMIN_TOKEN, createCompany, startApp, type TestApp, type TestCompany } from '../support/app';
import { mcpCall, newPkce, tokensFor } from '../support/oauth';

let t: TestApp;
let co: TestCompany;
beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('/healthz', () => {
  it('says how far the change feed lags behind open write transactions', async () => {
    const quiet = await t.http.get('/healthz').expect(200);
    expect(quiet.body).toEqual({
      status: 'ok',
      change_feed: {
        open_write_transactions: expect.any(Number),
        oldest_open_write_seconds: expect.any(Number),
      },
      jobs: expect.any(Object),
    });
    // Each kind of background work this node takes: its waiting and running jobs, and the oldest wait.
    expect(quiet.body.jobs['ocr.page']).toEqual({
      waiting: expect.any(Number),
      running: expect.any(Number),
      oldest_waiting_seconds: expect.any(Number),
    });
    if (!process.env.DATABASE_URL) return; // PGlite has one connection: no transaction can stay open beside the probe.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let begun!: () => void;
    const open = new Promise<void>((resolve) => (begun = resolve));
    const holder = t.db.transaction(async (trx) => {
      await trx.raw('select pg_current_xact_id()');
      begun();
      await held;
    });
    await open;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const stuck = await t.http.get('/healthz').expect(200);
    release();
    await holder;
    expect(stuck.body.change_feed.oldest_open_write_seconds).toBeGreaterThanOrEqual(1);
    expect(stuck.body.change_feed.open_write_transactions).toBeGreaterThanOrEqual(1);
  });
});

describe('request logs', () => {
  it('name the route and which query parameters were present, never their values', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = createApp({
      db: t.db,
      config: t.config,
      media: t.media,
      logger: pino({ level: 'info' }, sink),
    });
    const server = app.listen(0, '127.0.0.1');
    try {
      await request(server)
        .get('/api/v1/jobs?q=Maria%20Alvarez&limit=5')
        .set('Authorization', `Bearer ${co.readKey}`)
        .expect(200);
      await request(server)
        .get('/api/v1/customers?q=217-555-0142')
        .set('Authorization', `Bearer ${co.readKey}`)
        .expect(200);
    } finally {
      server.close();
    }
    const logged = lines.join('');
    // The phone's digits are matched whole: a timestamp may hold 555 by chance.
    expect(logged).not.toMatch(/Maria|Alvarez|217-555-0142|2175550142/);
    const entries = lines
      .map((line) => JSON.parse(line) as { req?: { path: string; query?: string[] } })
      .filter((entry) => entry.req);
    expect(entries.map((entry) => entry.req)).toEqual([
      expect.objectContaining({ path: '/api/v1/jobs', query: ['q', 'limit'] }),
      expect.objectContaining({ path: '/api/v1/customers', query: ['q'] }),
    ]);
  });

  it("carry no assistant's token, code, PKCE verifier or sign-in code", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = createApp({
      db: t.db,
      config: t.config,
      media: t.media,
      logger: pino({ level: 'debug' }, sink),
    });
    const server = app.listen(0, '127.0.0.1');
    const secrets: string[] = [];
    try {
      const via = { url: t.config.publicUrl, http: request(server) } as TestApp;
      const pkce = newPkce();
      const tokens = await tokensFor(via, co.writeKey, { pkce });
      secrets.push(pkce.verifier, tokens.access_token, tokens.refresh_token, co.writeKey);
      await mcpCall(via, tokens.access_token, 'tools/list').expect(200);
      const refreshed = await request(server)
        .post('/token')
        .type('form')
        .send(
          new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token,
            client_id: tokens.clientId,
          }).toString(),
        )
        .expect(200);
      secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
      const link = await request(server)
        .post(`/admin/v1/companies/${co.id}/sign-in-links`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ person_id: co.people[0].id, scope: 'read' })
        .expect(201);
      const url = new URL(link.body.url);
      secrets.push(url.searchParams.get('code')!);
      await request(server)
        .get(url.pathname + url.search)
        .expect(200);
      const codes = await t.db('oauth_codes').count<{ n: string }[]>('* as n');
      expect(Number(codes[0].n)).toBeGreaterThan(0);
    } finally {
      server.close();
    }
    const logged = lines.join('');
    expect(logged).toContain('/token');
    for (const secret of secrets) expect(logged).not.toContain(secret);
    expect(logged).not.toMatch(/jms_(at|rt|ac|si)_/);
  });
});
