/**
 * Error handling over HTTP: the problem+json shape of every error class, request ids, body
 * parsing limits, unknown paths and methods, the admin token, revoked and rotated keys, and the
 * per-key rate limit with its headers.
 */
import type { Response } from 'supertest';
import { loadConfig } from '../../src/platform/config';
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';

let t: TestApp;
let co: TestCompany;

const admin = (app: TestApp) => ({
  get: (path: string) => app.http.get(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  post: (path: string) => app.http.post(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  delete: (path: string) => app.http.delete(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
});

/** Checks the RFC 9457 shape, the code and the request id, and returns the problem. */
function expectProblem(res: Response, status: number, code: string): Record<string, unknown> {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/);
  const requestId = res.headers['x-request-id'];
  expect(typeof requestId).toBe('string');
  expect(requestId.length).toBeGreaterThan(0);
  expect(res.body).toEqual(
    expect.objectContaining({
      type: `https://jms.dev/problems/${code}`,
      title: expect.any(String),
      status,
      code,
      detail: expect.any(String),
      request_id: requestId,
    }),
  );
  expect((res.body.title as string).length).toBeGreaterThan(0);
  expect((res.body.detail as string).length).toBeGreaterThan(0);
  // Only the documented members, never a stack trace or an internal message.
  for (const member of Object.keys(res.body)) {
    expect(['type', 'title', 'status', 'code', 'detail', 'request_id', 'errors', 'valid_values']).toContain(
      member,
    );
  }
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+|node_modules|Error:/);
  return res.body as Record<string, unknown>;
}

const countJobs = async (companyId: string): Promise<number> =>
  Number(
    (await t.db('jobs').where({ company_id: companyId }).count<{ n: string | number }[]>('id as n'))[0].n,
  );

async function keyIdOf(app: TestApp, companyId: string, key: string): Promise<string> {
  const keys = (await admin(app).get(`/admin/v1/companies/${companyId}/keys`).expect(200)).body.data as {
    id: string;
    prefix: string;
  }[];
  const found = keys.filter((k) => key.startsWith(k.prefix));
  expect(found).toHaveLength(1);
  return found[0].id;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('problem details', () => {
  it('400 invalid_request names every wrong field', async () => {
    const res = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: '', customer_email: 'not-an-email', loss_type: 'volcano', surprise: 1 });
    const problem = expectProblem(res, 400, 'invalid_request');
    const errors = problem.errors as { path: string; message: string }[];
    expect(errors.map((e) => e.path).sort()).toEqual([
      '/body/customer_email',
      '/body/loss_type',
      '/body/operation_id',
      '/body/surprise',
    ]);
    for (const error of errors) expect(error.message.length).toBeGreaterThan(0);
    expect(await countJobs(co.id)).toBe(0);
  });

  it('400 naming /query/cursor for a cursor that no list handed out, on every paged list', async () => {
    const own = await createCompany(t);
    const job = (
      await as(t, own.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Cursor Check' })
        .expect(201)
    ).body;
    const forged = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
    const lists: [string, string][] = [
      ['/api/v1/jobs', 'before'],
      [`/api/v1/jobs/${job.id}/activity`, 'before'],
      ['/api/v1/price-list?q=drywall', 'offset'],
      ['/api/v1/changes', 'txid'],
    ];
    for (const [path, field] of lists) {
      for (const value of ['x', -1, 1.5, null, 2 ** 60]) {
        const separator = path.includes('?') ? '&' : '?';
        const res = await as(t, own.readKey).get(
          `${path}${separator}cursor=${forged({ [field]: value, seq: 0 })}`,
        );
        const problem = expectProblem(res, 400, 'invalid_request');
        expect(problem.errors).toEqual([expect.objectContaining({ path: '/query/cursor' })]);
      }
    }
  });

  it('400 for a missing operation_id and for a bad query parameter', async () => {
    const missing = expectProblem(
      await as(t, co.writeKey).post('/api/v1/jobs').send({ customer_name: 'No Id' }),
      400,
      'invalid_request',
    );
    expect((missing.errors as { path: string }[]).map((e) => e.path)).toEqual(['/body/operation_id']);
    const limit = expectProblem(
      await as(t, co.readKey).get('/api/v1/jobs?limit=1000'),
      400,
      'invalid_request',
    );
    expect((limit.errors as { path: string }[]).map((e) => e.path)).toEqual(['/query/limit']);
    const unknownParam = expectProblem(
      await as(t, co.readKey).get('/api/v1/jobs?colour=red'),
      400,
      'invalid_request',
    );
    expect((unknownParam.errors as { path: string }[]).map((e) => e.path)).toEqual(['/query/colour']);
    expect(await countJobs(co.id)).toBe(0);
  });

  it('401 unauthorized, with WWW-Authenticate, for a missing, malformed or unknown key', async () => {
    const cases: (string | undefined)[] = [
      undefined,
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer jms_not-a-real-key',
      `Bearer ${co.writeKey}0`,
    ];
    for (const header of cases) {
      const req = t.http.get('/api/v1/context');
      const res = await (header === undefined ? req : req.set('Authorization', header));
      expectProblem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="jms"/);
    }
    // A write without a key saves nothing; its body is not even read.
    expectProblem(
      await t.http.post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Anon' }),
      401,
      'unauthorized',
    );
    expectProblem(
      await t.http.post('/api/v1/jobs').set('Content-Type', 'application/json').send('{broken'),
      401,
      'unauthorized',
    );
    expectProblem(
      await t.http
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'x'.repeat(1024 * 1024) }),
      401,
      'unauthorized',
    );
    expectProblem(
      await t.http.post('/api/v1/jobs').set('Content-Type', 'text/plain').send('hello'),
      401,
      'unauthorized',
    );
    expect(await countJobs(co.id)).toBe(0);
  });

  it('403 write_key_required for a read key on a write tool, and nothing is saved', async () => {
    const res = await as(t, co.readKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Read Only' });
    expectProblem(res, 403, 'write_key_required');
    expect(await countJobs(co.id)).toBe(0);
  });

  it('404 not_found for a job that does not exist, and for one of another company', async () => {
    expectProblem(await as(t, co.readKey).get('/api/v1/jobs/%23777'), 404, 'not_found');
    expectProblem(await as(t, co.readKey).get('/api/v1/jobs/job_doesnotexist1'), 404, 'not_found');
    const other = await createCompany(t);
    const theirs = await as(t, other.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Theirs' })
      .expect(201);
    const byId = expectProblem(
      await as(t, co.readKey).get(`/api/v1/jobs/${theirs.body.id}`),
      404,
      'not_found',
    );
    const missing = expectProblem(
      await as(t, co.readKey).get('/api/v1/jobs/job_doesnotexist2'),
      404,
      'not_found',
    );
    // Another company's job is indistinguishable from one that does not exist.
    expect(byId.detail).toBe(missing.detail);
  });

  it('409 operation_id_conflict', async () => {
    const operationId = opId();
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: operationId, customer_name: 'First' })
      .expect(201);
    expectProblem(
      await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: operationId, customer_name: 'Second' }),
      409,
      'operation_id_conflict',
    );
    expect(await countJobs(co.id)).toBe(1);
  });

  it('409 undo_not_possible', async () => {
    const fresh = await createCompany(t);
    expectProblem(
      await as(t, fresh.writeKey).post('/api/v1/undo').send({ operation_id: opId() }),
      409,
      'undo_not_possible',
    );
  });

  it('422 unknown_teammate lists the valid names and saves nothing', async () => {
    const before = await countJobs(co.id);
    const res = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Who', assignee: 'Nobody Atall' });
    const problem = expectProblem(res, 422, 'unknown_teammate');
    expect(problem.valid_values).toEqual(
      expect.arrayContaining(['Avery Stone', 'Dana Brooks', 'Dana White', 'Sam Okafor']),
    );
    expect(problem.detail).toContain('Nobody Atall');
    expect(await countJobs(co.id)).toBe(before);
  });

  it('422 unknown_referral_source', async () => {
    const res = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), referral_source: 'Carrier pigeon' });
    expectProblem(res, 422, 'unknown_referral_source');
  });
});

describe('request ids', () => {
  it('every answer carries X-Request-Id; problems repeat it as request_id', async () => {
    const ok = await as(t, co.readKey).get('/api/v1/context').expect(200);
    expect(ok.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]+$/);
    const a = await as(t, co.readKey).get('/api/v1/jobs/%23999');
    const b = await as(t, co.readKey).get('/api/v1/jobs/%23999');
    expectProblem(a, 404, 'not_found');
    expectProblem(b, 404, 'not_found');
    expect(a.body.request_id).not.toBe(b.body.request_id);
  });

  it('echoes a well-formed incoming X-Request-Id, on success and on error', async () => {
    const ok = await as(t, co.readKey).get('/api/v1/context').set('X-Request-Id', 'trace-ok.1').expect(200);
    expect(ok.headers['x-request-id']).toBe('trace-ok.1');
    const failed = await as(t, co.readKey).get('/api/v1/jobs/%23777').set('X-Request-Id', 'trace-42');
    expectProblem(failed, 404, 'not_found');
    expect(failed.body.request_id).toBe('trace-42');
    const unauthenticated = await t.http.get('/api/v1/context').set('X-Request-Id', 'trace-401');
    expectProblem(unauthenticated, 401, 'unauthorized');
    expect(unauthenticated.body.request_id).toBe('trace-401');
  });

  it('replaces an incoming X-Request-Id that is too long or has odd characters', async () => {
    for (const given of ['x'.repeat(65), 'has spaces in it', 'quote"d', '<script>']) {
      const res = await as(t, co.readKey).get('/api/v1/jobs/%23777').set('X-Request-Id', given);
      expectProblem(res, 404, 'not_found');
      expect(res.headers['x-request-id']).not.toBe(given);
      expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]+$/);
    }
  });
});

describe('bodies', () => {
  it('invalid JSON → 400 invalid_request, nothing saved', async () => {
    const before = await countJobs(co.id);
    const res = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .set('Content-Type', 'application/json')
      .send('{"operation_id": "x", ');
    const problem = expectProblem(res, 400, 'invalid_request');
    expect(problem.errors).toEqual([{ path: '/body', message: expect.any(String) }]);
    expect(await countJobs(co.id)).toBe(before);
  });

  it('a body over 1 MiB → 413 payload_too_large; just under passes the size check', async () => {
    const before = await countJobs(co.id);
    const big = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'x'.repeat(1024 * 1024) });
    expectProblem(big, 413, 'payload_too_large');
    // Just under 1 MiB: parsed, then refused by the spec's own field limit (not by size).
    const under = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'x'.repeat(1024 * 1024 - 200) });
    const problem = expectProblem(under, 400, 'invalid_request');
    expect((problem.errors as { path: string }[]).map((e) => e.path)).toEqual(['/body/customer_name']);
    expect(await countJobs(co.id)).toBe(before);
  });

  it('a body that is not JSON on a POST → 415 unsupported_media_type, nothing saved', async () => {
    const before = await countJobs(co.id);
    const text = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .set('Content-Type', 'text/plain')
      .send('operation_id=1');
    expectProblem(text, 415, 'unsupported_media_type');
    const form = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .type('form')
      .send({ operation_id: opId(), customer_name: 'Form' });
    expectProblem(form, 415, 'unsupported_media_type');
    const xml = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .set('Content-Type', 'application/xml')
      .send('<job/>');
    expectProblem(xml, 415, 'unsupported_media_type');
    expect(await countJobs(co.id)).toBe(before);
  });

  it('JSON with a charset parameter is accepted', async () => {
    const res = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .set('Content-Type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ operation_id: opId(), customer_name: 'Charset Carl' }))
      .expect(201);
    expect(res.body.customer_name).toBe('Charset Carl');
  });
});

describe('paths and methods', () => {
  it('an unknown path under /api/v1 → 404 not_found', async () => {
    expectProblem(await as(t, co.readKey).get('/api/v1/nothing-here'), 404, 'not_found');
    expectProblem(await as(t, co.writeKey).post('/api/v1/nothing-here').send({}), 404, 'not_found');
    expectProblem(await as(t, co.readKey).get('/api/v1/jobs/%23777/nonsense'), 404, 'not_found');
  });

  it('a known path with a wrong method → 405 method_not_allowed', async () => {
    const before = await countJobs(co.id);
    const jobs = await as(t, co.writeKey)
      .put('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Put' });
    expectProblem(jobs, 405, 'method_not_allowed');
    // RFC 9110: a 405 lists the methods the resource does allow.
    expect(jobs.headers.allow.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
    const context = await as(t, co.writeKey).delete('/api/v1/context');
    expectProblem(context, 405, 'method_not_allowed');
    expect(context.headers.allow).toBe('GET');
    const undo = await as(t, co.writeKey).get('/api/v1/undo');
    expectProblem(undo, 405, 'method_not_allowed');
    expect(undo.headers.allow).toBe('POST');
    expect(await countJobs(co.id)).toBe(before);
  });
});

describe('admin API', () => {
  it('a wrong or missing admin token → 401; an API key is not an admin token', async () => {
    for (const header of [
      undefined,
      'Bearer wrong-token-0123456789',
      `Bearer ${ADMIN_TOKEN}x`,
      `Bearer ${co.writeKey}`,
    ]) {
      const req = t.http.post('/admin/v1/companies');
      const res = await (header === undefined ? req : req.set('Authorization', header)).send({
        name: 'Sneaky Co',
        credits: 1,
      });
      expectProblem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect(await t.db('companies').where({ name: 'Sneaky Co' }).first()).toBeUndefined();
  });

  it('an empty ADMIN_TOKEN counts as unset', () => {
    expect(loadConfig({ ADMIN_TOKEN: '' }).adminToken).toBeUndefined();
    expect(loadConfig({}).adminToken).toBeUndefined();
    expect(loadConfig({ ADMIN_TOKEN: ADMIN_TOKEN }).adminToken).toBe(ADMIN_TOKEN);
  });

  it('with ADMIN_TOKEN unset the admin API answers 404 admin_api_disabled, whatever the token', async () => {
    const off = await startApp({ ADMIN_TOKEN: '' });
    try {
      expect(off.config.adminToken).toBeUndefined();
      for (const header of [undefined, `Bearer ${ADMIN_TOKEN}`, 'Bearer ']) {
        const req = off.http.post('/admin/v1/companies');
        const res = await (header === undefined ? req : req.set('Authorization', header)).send({
          name: 'Nope',
          credits: 1,
        });
        expectProblem(res, 404, 'admin_api_disabled');
      }
      expectProblem(
        await off.http.get('/admin/v1/companies/co_x/keys').set('Authorization', `Bearer ${ADMIN_TOKEN}`),
        404,
        'admin_api_disabled',
      );
      // Turned off, it does not read bodies either.
      expectProblem(
        await off.http.post('/admin/v1/companies').set('Content-Type', 'application/json').send('{broken'),
        404,
        'admin_api_disabled',
      );
      expect(await off.db('companies').where({ name: 'Nope' }).first()).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});

describe('revoked and rotated keys', () => {
  it('a revoked key answers 401 at once, even right after it was used', async () => {
    const company = await createCompany(t);
    await as(t, company.writeKey).get('/api/v1/context').expect(200);
    const keyId = await keyIdOf(t, company.id, company.writeKey);
    await admin(t).delete(`/admin/v1/keys/${keyId}`).expect(204);
    const refused = await as(t, company.writeKey).get('/api/v1/context');
    expectProblem(refused, 401, 'unauthorized');
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    expectProblem(
      await as(t, company.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Too Late' }),
      401,
      'unauthorized',
    );
    expect(await countJobs(company.id)).toBe(0);
    // Revoking again is harmless; the other keys of the company still work.
    await admin(t).delete(`/admin/v1/keys/${keyId}`).expect(204);
    await as(t, company.readKey).get('/api/v1/context').expect(200);
    const listed = (await admin(t).get(`/admin/v1/companies/${company.id}/keys`).expect(200)).body.data as {
      id: string;
      revoked_at: string | null;
    }[];
    expect(listed.find((k) => k.id === keyId)?.revoked_at).toEqual(expect.any(String));
    // A revoked key cannot be rotated back to life.
    expectProblem(await admin(t).post(`/admin/v1/keys/${keyId}/rotate`).send(), 404, 'not_found');
    expectProblem(await admin(t).delete('/admin/v1/keys/key_doesnotexist'), 404, 'not_found');
  });

  it('a rotated key: the old secret answers 401, the new one works for the same person', async () => {
    const company = await createCompany(t);
    const before = (await as(t, company.writeKey).get('/api/v1/context').expect(200)).body;
    const keyId = await keyIdOf(t, company.id, company.writeKey);
    const rotated = await admin(t).post(`/admin/v1/keys/${keyId}/rotate`).send().expect(200);
    expect(rotated.body).toMatchObject({ id: keyId, scope: 'write', person_id: company.people[0].id });
    const newKey = rotated.body.key as string;
    expect(newKey).toMatch(/^jms_[0-9A-Za-z]{40}$/);
    expect(newKey).not.toBe(company.writeKey);
    expect(newKey.startsWith(rotated.body.prefix)).toBe(true);

    expectProblem(await as(t, company.writeKey).get('/api/v1/context'), 401, 'unauthorized');
    const after = (await as(t, newKey).get('/api/v1/context').expect(200)).body;
    // The same person and company (the company's clock aside).
    expect(after).toEqual({
      ...before,
      company: { ...before.company, local_time: after.company.local_time },
      key: { ...before.key, prefix: rotated.body.prefix },
    });
    expect(after.key.prefix).not.toBe(before.key.prefix);
    const job = await as(t, newKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Rotated Rita' })
      .expect(201);
    expect(job.body.created_by.name).toBe('Avery Stone');
  });
});

describe('rate limit', () => {
  it('the 6th request of a minute is 429 rate_limited with Retry-After and RateLimit headers; limits are per key', async () => {
    const limited = await startApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_BURST: '100' });
    try {
      const company = await createCompany(limited);
      for (let i = 0; i < 5; i++) {
        const ok = await as(limited, company.readKey).get('/api/v1/context').expect(200);
        expect(ok.headers.ratelimit).toMatch(new RegExp(`^limit=5, remaining=${4 - i}, reset=\\d+$`));
        expect(ok.headers['ratelimit-policy']).toBe('5;w=60, 100;w=1');
      }
      const refused = await as(limited, company.readKey).get('/api/v1/context');
      expectProblem(refused, 429, 'rate_limited');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.ratelimit).toBe(`limit=5, remaining=0, reset=${retryAfter}`);
      expect(refused.headers['ratelimit-policy']).toBe('5;w=60, 100;w=1');
      // The limit comes before everything else: a write with this key is refused the same way.
      expectProblem(
        await as(limited, company.readKey).post('/api/v1/jobs').send({ operation_id: opId() }),
        429,
        'rate_limited',
      );

      // Another key of the same company, and of another company, still pass.
      const other = await as(limited, company.otherWriteKey).get('/api/v1/context').expect(200);
      expect(other.headers.ratelimit).toMatch(/^limit=5, remaining=4, reset=\d+$/);
      const otherCompany = await createCompany(limited);
      await as(limited, otherCompany.readKey).get('/api/v1/context').expect(200);
    } finally {
      await limited.close();
    }
  });

  it('a refused key stays refused, and the admin API is not limited', async () => {
    const limited = await startApp({ RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_BURST: '100' });
    try {
      const company = await createCompany(limited);
      await as(limited, company.writeKey).get('/api/v1/context').expect(200);
      await as(limited, company.writeKey).get('/api/v1/context').expect(200);
      for (let i = 0; i < 3; i++)
        expectProblem(
          await as(limited, company.writeKey).post('/api/v1/jobs').send({ operation_id: opId() }),
          429,
          'rate_limited',
        );
      expect(
        Number(
          (
            await limited
              .db('jobs')
              .where({ company_id: company.id })
              .count<{ n: string | number }[]>('id as n')
          )[0].n,
        ),
      ).toBe(0);
      for (let i = 0; i < 4; i++)
        await admin(limited).get(`/admin/v1/companies/${company.id}/keys`).expect(200);
    } finally {
      await limited.close();
    }
  });

  it('bursts are limited within one second', async () => {
    const limited = await startApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_BURST: '3' });
    try {
      const company = await createCompany(limited);
      const answers: Response[] = [];
      for (let i = 0; i < 4; i++) answers.push(await as(limited, company.readKey).get('/api/v1/context'));
      expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
      expectProblem(answers[3], 429, 'rate_limited');
      expect(answers[3].headers['ratelimit-policy']).toBe('1000;w=60, 3;w=1');
      expect(Number(answers[3].headers['retry-after'])).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('every answer to a key carries RateLimit and RateLimit-Policy, errors included', async () => {
    const answers: [string, Response][] = [
      ['200', await as(t, co.readKey).get('/api/v1/context')],
      [
        '201',
        await as(t, co.writeKey)
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), customer_name: 'Headers' }),
      ],
      ['400 spec', await as(t, co.writeKey).post('/api/v1/jobs').send({ customer_name: 'No Id' })],
      [
        '400 json',
        await as(t, co.writeKey).post('/api/v1/jobs').set('Content-Type', 'application/json').send('{nope'),
      ],
      ['403', await as(t, co.readKey).post('/api/v1/jobs').send({ operation_id: opId() })],
      ['404', await as(t, co.readKey).get('/api/v1/jobs/%23777')],
      ['404 path', await as(t, co.readKey).get('/api/v1/nothing-here')],
      ['405', await as(t, co.readKey).put('/api/v1/jobs').send({})],
      [
        '409',
        await as(t, (await createCompany(t)).writeKey)
          .post('/api/v1/undo')
          .send({ operation_id: opId() }),
      ],
      [
        '413',
        await as(t, co.writeKey)
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), customer_name: 'x'.repeat(1024 * 1024) }),
      ],
      ['415', await as(t, co.writeKey).post('/api/v1/jobs').set('Content-Type', 'text/plain').send('hello')],
      [
        '422',
        await as(t, co.writeKey)
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), assignee: 'Nobody Atall' }),
      ],
    ];
    for (const [label, res] of answers) {
      expect({
        label,
        status: String(res.status),
        rateLimit: res.headers.ratelimit,
        policy: res.headers['ratelimit-policy'],
      }).toEqual({
        label,
        status: label.split(' ')[0],
        rateLimit: expect.stringMatching(/^limit=100000, remaining=\d+, reset=\d+$/),
        policy: '100000;w=60, 100000;w=1',
      });
    }
  });
});
