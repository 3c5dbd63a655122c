/** Problem responses, authentication and the per-key rate limit over HTTP. */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from './support/app';

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('problem responses', () => {
  it('have the RFC 9457 shape, with the request id of the X-Request-Id header', async () => {
    const res = await as(t, co.readKey).get('/api/v1/jobs/%23777').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({
      type: 'https://jms.dev/problems/not_found',
      title: 'Not found',
      status: 404,
      detail: expect.any(String),
      code: 'not_found',
      request_id: res.headers['x-request-id'],
    });
    const echoed = await as(t, co.readKey).get('/api/v1/jobs/%23777').set('X-Request-Id', 'trace-42').expect(404);
    expect(echoed.headers['x-request-id']).toBe('trace-42');
    expect(echoed.body.request_id).toBe('trace-42');
  });

  it('name every wrong field', async () => {
    const res = await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: '', customer_email: 'not-an-email', loss_type: 'volcano', extra: 1 }).expect(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/body/customer_email', '/body/extra', '/body/loss_type', '/body/operation_id']);
  });

  it('cover bodies that are not JSON, too large or of another type', async () => {
    const broken = await as(t, co.writeKey).post('/api/v1/jobs').set('Content-Type', 'application/json').send('{"operation_id": ').expect(400);
    expect(broken.body.code).toBe('invalid_request');
    const big = await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: opId(), title: 'x'.repeat(1_100_000) }).expect(413);
    expect(big.body.code).toBe('payload_too_large');
    const form = await as(t, co.writeKey).post('/api/v1/jobs').set('Content-Type', 'text/plain').send('operation_id=1').expect(415);
    expect(form.body.code).toBe('unsupported_media_type');
    expect((await t.db('jobs').where({ company_id: co.id }).count('id as n').first())!.n).toBe(0);
  });

  it('cover unknown paths and methods', async () => {
    expect((await as(t, co.readKey).get('/api/v1/nothing-here').expect(404)).body.code).toBe('not_found');
    expect((await as(t, co.readKey).put('/api/v1/jobs').send({}).expect(405)).body.code).toBe('method_not_allowed');
  });
});

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate for a missing, malformed or unknown key', async () => {
    for (const header of [undefined, 'Token abc', 'Bearer', `Bearer ${co.readKey}x`]) {
      const req = t.http.get('/api/v1/context');
      const res = await (header === undefined ? req : req.set('Authorization', header)).expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="jms"/);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('serves the spec and a health check without a key', async () => {
    const spec = await t.http.get('/api/v1/openapi.json').expect(200);
    expect(spec.body.openapi).toBe('3.1.0');
    expect((await t.http.get('/healthz').expect(200)).body).toEqual({ status: 'ok' });
  });
});

describe('rate limit', () => {
  it('limits each key on its own, with RateLimit headers and Retry-After', async () => {
    const limited = await startApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_BURST: '100' });
    const company = await createCompany(limited);
    for (let i = 0; i < 5; i++) {
      const ok = await as(limited, company.readKey).get('/api/v1/context').expect(200);
      expect(ok.headers['ratelimit']).toMatch(new RegExp(`^limit=5, remaining=${4 - i}, reset=\\d+$`));
      expect(ok.headers['ratelimit-policy']).toBe('5;w=60, 100;w=1');
    }
    const refused = await as(limited, company.readKey).get('/api/v1/context').expect(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit']).toMatch(/remaining=0/);
    await as(limited, company.writeKey).get('/api/v1/context').expect(200);
    await limited.close();
  });

  it('limits bursts within a second', async () => {
    const limited = await startApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_BURST: '3' });
    const company = await createCompany(limited);
    const answers = await Promise.all(Array.from({ length: 6 }, () => as(limited, company.readKey).get('/api/v1/context')));
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(3);
    await limited.close();
  });
});
