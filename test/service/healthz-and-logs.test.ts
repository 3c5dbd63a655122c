/**
 * What an operator watches: the change feed's lag in /healthz, and request logs without
 * customers' data. (The purge of idempotency records is in test/pipeline/idempotency-retention.test.ts.)
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/transports/http/app';
import { createCompany, startApp, type TestApp, type TestCompany } from '../support/app';

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
    expect(quiet.body).toEqual({ status: 'ok', change_feed: { open_write_transactions: expect.any(Number), oldest_open_write_seconds: expect.any(Number) }, jobs: expect.any(Object) });
    // Each kind of background work this node takes: its waiting and running jobs, and the oldest wait.
    expect(quiet.body.jobs['ocr.page']).toEqual({ waiting: expect.any(Number), running: expect.any(Number), oldest_waiting_seconds: expect.any(Number) });
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
    const app = createApp({ db: t.db, config: t.config, media: t.media, logger: pino({ level: 'info' }, sink) });
    const server = app.listen(0, '127.0.0.1');
    try {
      await request(server).get('/api/v1/jobs?q=Maria%20Alvarez&limit=5').set('Authorization', `Bearer ${co.readKey}`).expect(200);
      await request(server).get('/api/v1/customers?q=217-555-0142').set('Authorization', `Bearer ${co.readKey}`).expect(200);
    } finally {
      server.close();
    }
    const logged = lines.join('');
    // The phone's digits are matched whole: a timestamp may hold 555 by chance.
    expect(logged).not.toMatch(/Maria|Alvarez|217-555-0142|2175550142/);
    const entries = lines.map((line) => JSON.parse(line) as { req?: { path: string; query?: string[] } }).filter((entry) => entry.req);
    expect(entries.map((entry) => entry.req)).toEqual([expect.objectContaining({ path: '/api/v1/jobs', query: ['q', 'limit'] }), expect.objectContaining({ path: '/api/v1/customers', query: ['q'] })]);
  });
});
