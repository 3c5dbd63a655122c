/**
 * Rate limits count work: an HTTP request or an MCP tool call is one unit of the key's budget,
 * batched calls each count, MCP's protocol messages have an allowance of their own, failed
 * authentication is limited per client address before any look-up (yet never refuses a valid
 * key), and the admin token has its own budget. A 429 describes the window that refused it.
 */
import type { Response } from 'supertest';
import { ADMIN_TOKEN, as, createCompany, opId, startApp, type TestApp } from '../support/app';
import { connectMcp } from '../support/mcp';

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((app) => app.close())));

async function limitedApp(env: Record<string, string>): Promise<TestApp> {
  const app = await startApp(env);
  apps.push(app);
  return app;
}

/** A 429 with Retry-After; `header`: what its RateLimit header must say (failed authentication has no key's budget to describe). */
function expectRateLimited(res: Response, header: RegExp | null): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 429, code: 'rate_limited' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  if (header) expect(res.headers.ratelimit).toMatch(header);
}

/** JSON-RPC over /mcp without a client: what a stateless client sends. */
function mcpPost(t: TestApp, key: string, body: unknown, version = '2025-03-26') {
  return t.http
    .post('/mcp')
    .set('Authorization', `Bearer ${key}`)
    .set('Accept', 'application/json, text/event-stream')
    .set('Mcp-Protocol-Version', version)
    .send(body as object);
}

const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('HTTP', () => {
  it('a burst 429 names the per-second window that refused it, not the minute', async () => {
    const t = await limitedApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_BURST: '3' });
    const co = await createCompany(t);
    const answers: Response[] = [];
    for (let i = 0; i < 4; i++) answers.push(await as(t, co.readKey).get('/api/v1/context'));
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[2].headers.ratelimit).toMatch(/^limit=3, remaining=0, reset=1$/);
    expectRateLimited(answers[3], /^limit=3, remaining=0, reset=1$/);
    expect(answers[3].headers['ratelimit-policy']).toBe('1000;w=60, 3;w=1');
  });
});

describe('MCP', () => {
  it('a stateless client handshaking before every call spends one unit a call', async () => {
    const t = await limitedApp({ RATE_LIMIT_PER_MINUTE: '4', RATE_LIMIT_BURST: '100' });
    const co = await createCompany(t);
    const calls: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      // A new client each time: its protocol messages (2025: initialize, the initialized
      // notification, ping; 2026-07-28: none), tools/list, then the call.
      const client = await connectMcp(t, co.readKey);
      if (client.getProtocolEra() === 'legacy') await client.ping();
      const result = await client.callTool({ name: 'get_context', arguments: {} }).then(
        (r) => !r.isError,
        () => false,
      );
      calls.push(result);
      await client.close();
    }
    expect(calls).toEqual([true, true, true, true, false]);
  });

  it('each tool call in a batch is one unit: a batch that does not fit is refused whole', async () => {
    const t = await limitedApp({ RATE_LIMIT_PER_MINUTE: '10', RATE_LIMIT_BURST: '100' });
    const co = await createCompany(t);
    const batch = (from: number) =>
      Array.from({ length: 4 }, (_, i) => toolCall(from + i, 'find_jobs', { q: 'x' }));
    const first = await mcpPost(t, co.readKey, batch(1)).expect(200);
    expect(first.body).toHaveLength(4);
    expect(first.headers.ratelimit).toMatch(/^limit=10, remaining=6, reset=\d+$/);
    await mcpPost(t, co.readKey, batch(5)).expect(200);
    // 8 used, 2 left: a batch of 4 is refused and counts; then even one call is refused.
    expectRateLimited(await mcpPost(t, co.readKey, batch(9)), /^limit=10, remaining=0, reset=\d+$/);
    expectRateLimited(await mcpPost(t, co.readKey, toolCall(13, 'get_context')), /^limit=10, remaining=0/);
  });

  it('a batch larger than a second allows is a 400, and clients of MCP 2025-06-18 on cannot batch', async () => {
    const t = await limitedApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_BURST: '5' });
    const co = await createCompany(t);
    const big = await mcpPost(
      t,
      co.readKey,
      Array.from({ length: 6 }, (_, i) => toolCall(i, 'get_context')),
    );
    expect({ status: big.status, code: big.body.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect(big.body.errors[0].message).toMatch(/at most 5/);
    const modern = await mcpPost(t, co.readKey, [toolCall(1, 'get_context')], '2025-06-18');
    expect({ status: modern.status, code: modern.body.code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    expect(modern.body.errors[0].message).toMatch(/batch/);
    await mcpPost(t, co.readKey, toolCall(1, 'get_context'), '2025-06-18').expect(200);
  });

  it('protocol messages have their own allowance, five times the key budget', async () => {
    const t = await limitedApp({ RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_BURST: '100' });
    const co = await createCompany(t);
    const pings = [];
    for (let i = 0; i < 11; i++)
      pings.push((await mcpPost(t, co.readKey, { jsonrpc: '2.0', id: i, method: 'ping' })).status);
    expect(pings).toEqual([...Array(10).fill(200), 429]);
    // The key's budget for work is untouched.
    await mcpPost(t, co.readKey, toolCall(1, 'get_context')).expect(200);
  });
});

describe('failed authentication', () => {
  it('is limited per client address; past the limit an unknown key is not even looked up', async () => {
    const t = await limitedApp({ AUTH_FAILURES_PER_MINUTE: '5', AUTH_FAILURES_BURST: '100' });
    const co = await createCompany(t);
    await as(t, co.readKey).get('/api/v1/context').expect(200);
    const fake = `jms_${'A'.repeat(40)}`;
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await as(t, i % 2 ? fake : 'not-a-key').get('/api/v1/context')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);

    const queries: string[] = [];
    const onQuery = (q: { sql: string }) => queries.push(q.sql);
    t.db.on('query', onQuery);
    try {
      expectRateLimited(await as(t, fake).get('/api/v1/context'), null);
      expectRateLimited(await t.http.get('/api/v1/context'), null);
      expectRateLimited(await t.http.post('/mcp').set('Authorization', `Bearer ${fake}`).send({}), null);
      expect(queries.filter((sql) => sql.includes('api_keys'))).toEqual([]);
      // A key this node knows still works from that address.
      await as(t, co.readKey).get('/api/v1/context').expect(200);
    } finally {
      t.db.off('query', onQuery);
    }
  });

  it('1,000 keyless requests from an address never refuse a valid key there, over HTTP and MCP; unknown and revoked keys are refused', async () => {
    const t = await limitedApp({ AUTH_FAILURES_PER_MINUTE: '60', AUTH_FAILURES_BURST: '1000' });
    const co = await createCompany(t);
    const admin = (req: ReturnType<TestApp['http']['post']>) =>
      req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const newKey = async () =>
      (
        await admin(t.http.post(`/admin/v1/companies/${co.id}/keys`))
          .send({ person_id: co.people[0].id, scope: 'read' })
          .expect(201)
      ).body as { id: string; key: string };
    const keyless: number[] = [];
    const valid: number[] = [];
    let lateKey: { id: string; key: string } | null = null;
    for (let i = 0; i < 1000; i++) {
      keyless.push((await t.http.get('/api/v1/context')).status);
      if (i === 500) lateKey = await newKey(); // never seen by the node before its address was over
      if (i % 50 !== 49) continue;
      valid.push((await as(t, co.readKey).get('/api/v1/context')).status);
      const overMcp = await mcpPost(t, co.readKey, toolCall(i, 'get_context'));
      valid.push(overMcp.status, overMcp.body.result?.isError ? 500 : 200);
      if (lateKey) valid.push((await as(t, lateKey.key).get('/api/v1/context')).status);
    }
    const tally = (statuses: number[]) => {
      const counts: Record<number, number> = {};
      for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
      return counts;
    };
    expect(keyless.slice(0, 60)).toEqual(Array(60).fill(401));
    expect(tally(keyless.slice(60))).toEqual({ 429: 940 });
    expect(tally(valid)).toEqual({ 200: 20 * 3 + 10 });

    expectRateLimited(await as(t, `jms_${'C'.repeat(40)}`).get('/api/v1/context'), null);
    expectRateLimited(await mcpPost(t, `jms_${'C'.repeat(40)}`, toolCall(1, 'get_context')), null);
    await admin(t.http.delete(`/admin/v1/keys/${lateKey!.id}`)).expect(204);
    expectRateLimited(await as(t, lateKey!.key).get('/api/v1/context'), null);
    await as(t, co.readKey).get('/api/v1/context').expect(200);
  }, 180_000);

  it('a malformed key is refused without a look-up', async () => {
    const t = await limitedApp({});
    const queries: string[] = [];
    const onQuery = (q: { sql: string }) => queries.push(q.sql);
    t.db.on('query', onQuery);
    try {
      for (const key of ['jms_short', `jms_${'a'.repeat(39)}!`, 'x'.repeat(300)]) {
        expect((await as(t, key).get('/api/v1/context')).status).toBe(401);
      }
    } finally {
      t.db.off('query', onQuery);
    }
    expect(queries.filter((sql) => sql.includes('api_keys'))).toEqual([]);
  });

  it('answers 401 with a WWW-Authenticate header quoted as RFC 6750 says (no quote or backslash inside a value)', async () => {
    const t = await limitedApp({});
    // Resources also name their metadata and scope (RFC 9728), quoted the same way.
    const quoted =
      /^Bearer realm="jms", error="(invalid_request|invalid_token)", error_description="[\x20\x21\x23-\x5B\x5D-\x7E]*"(, (resource_metadata|scope)="[\x20\x21\x23-\x5B\x5D-\x7E]*")*$/;
    for (const res of [
      await t.http.get('/api/v1/context'),
      await as(t, `jms_${'B'.repeat(40)}`).get('/api/v1/context'),
      await t.http.get('/admin/v1/companies/co_x/keys').set('Authorization', 'Bearer nope'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(quoted);
    }
  });

  it('wrong admin tokens count too, and the admin token has a budget of its own', async () => {
    const t = await limitedApp({
      AUTH_FAILURES_PER_MINUTE: '2',
      AUTH_FAILURES_BURST: '100',
      ADMIN_RATE_LIMIT_PER_MINUTE: '20',
    });
    const co = await createCompany(t); // 8 admin calls
    await as(t, co.readKey).get('/api/v1/context').expect(200);
    const wrong = () =>
      t.http.get('/admin/v1/companies/co_nope/keys').set('Authorization', 'Bearer wrong-token-0123456789');
    expect([(await wrong()).status, (await wrong()).status, (await wrong()).status]).toEqual([401, 401, 429]);
    const admin = () =>
      t.http.get(`/admin/v1/companies/${co.id}/keys`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const statuses = [];
    for (let i = 0; i < 13; i++) statuses.push((await admin()).status);
    expect(statuses.slice(0, 12)).toEqual(Array(12).fill(200));
    expect(statuses[12]).toBe(429);
    // Keys are not charged for what the admin did, and a known key still works from this address.
    await as(t, co.readKey).get('/api/v1/context').expect(200);
  });
});

describe('fairness between companies', () => {
  it('one company saturating its limits over HTTP and batched MCP is refused; another company is served', async () => {
    const t = await limitedApp({ RATE_LIMIT_PER_MINUTE: '600', RATE_LIMIT_BURST: '20' });
    const busy = await createCompany(t);
    const quiet = await createCompany(t);
    const job = (
      await as(t, quiet.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Quiet Quinn' })
        .expect(201)
    ).body;
    const flood = Array.from({ length: 60 }, (_, i) =>
      i % 2
        ? as(t, busy.readKey).get('/api/v1/jobs?q=a')
        : mcpPost(
            t,
            busy.readKey,
            Array.from({ length: 10 }, (_, j) => toolCall(j, 'find_jobs', { q: 'a' })),
          ),
    );
    const quietAnswers = Array.from({ length: 10 }, () => as(t, quiet.readKey).get(`/api/v1/jobs/${job.id}`));
    const [floodStatuses, quietStatuses] = await Promise.all([
      Promise.all(flood).then((a) => a.map((r) => r.status)),
      Promise.all(quietAnswers).then((a) => a.map((r) => r.status)),
    ]);
    expect(quietStatuses).toEqual(Array(10).fill(200));
    expect(floodStatuses.filter((s) => s === 429).length).toBeGreaterThan(30);
    expect(floodStatuses.every((s) => s === 200 || s === 429)).toBe(true);
  });
});
