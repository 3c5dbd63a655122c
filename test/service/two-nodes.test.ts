/**
 * Several nodes behind a load balancer (DESIGN §9): two service processes on one PostgreSQL
 * database and one Redis. The per-key rate limit is shared, a revocation on one node stops the
 * key (and an assistant's revoked grant) on the other at once, one operation_id sent to both at the same moment saves once, and a
 * poller of one node sees every write of the other. PostgreSQL only (a PGlite data dir belongs to
 * one process); Redis at REDIS_URL or 127.0.0.1:6379, which .ci/run starts.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { adminOf as admin, startNode, stopNodes, type Node } from '../support/nodes';
import type { TestApp } from '../support/app';
import { exchange, mcpCall, tokensFor } from '../support/oauth';
import { describeOnPostgres } from '../support/databases';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PER_MINUTE = 100;
const BALANCED_URL = 'http://localhost:9';

jest.setTimeout(120_000);

/** A node whose rate limits count in Redis, shared with the other. */
const nodeEnv = {
  REDIS_URL: redisUrl,
  RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
  RATE_LIMIT_BURST: '1000',
  // Redis keeps the admin token's and each address's counts across runs: not what is tested here.
  ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
  AUTH_FAILURES_PER_MINUTE: '100000',
  AUTH_FAILURES_BURST: '100000',
  // The address in front of both nodes: tokens are issued for its /mcp, whichever node issues them.
  PUBLIC_URL: BALANCED_URL,
};

describeOnPostgres('two nodes on one database and one Redis', () => {
  let a: Node;
  let b: Node;
  let companyId: string;
  let personId: string;

  const withKey = (node: Node, key: string) => ({
    get: (p: string) => request(node.url).get(p).set('Authorization', `Bearer ${key}`),
    post: (p: string) => request(node.url).post(p).set('Authorization', `Bearer ${key}`),
  });
  const newKey = async (scope: 'read' | 'write') =>
    (
      await admin(a)
        .post(`/admin/v1/companies/${companyId}/keys`)
        .send({ person_id: personId, scope })
        .expect(201)
    ).body as { id: string; key: string };

  beforeAll(async () => {
    // One after the other is not needed: nodes starting together wait for each other's migration.
    const started = await Promise.allSettled([startNode(nodeEnv), startNode(nodeEnv)]);
    [a, b] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined)) as Node[];
    const failed = started.find((result) => result.status === 'rejected');
    // A node that started while the other did not is stopped, not left running.
    if (failed) {
      await stopNodes([a, b]);
      throw failed.reason;
    }
    const company = await admin(a)
      .post('/admin/v1/companies')
      .send({ name: `Nodes ${randomUUID().slice(0, 6)}`, credits: 5 })
      .expect(201);
    companyId = company.body.id;
    personId = (
      await admin(b)
        .post(`/admin/v1/companies/${companyId}/team`)
        .send({ name: 'Nia Node', role: 'Owner' })
        .expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await stopNodes([a, b]);
  });

  it('share one rate limit per key through Redis', async () => {
    const { key } = await newKey('read');
    const statuses: number[] = [];
    for (let i = 0; i < PER_MINUTE + 4; i++)
      statuses.push((await withKey(i % 2 ? b : a, key).get('/api/v1/context')).status);
    expect(statuses.slice(0, PER_MINUTE)).toEqual(Array(PER_MINUTE).fill(200));
    expect(statuses.slice(PER_MINUTE)).toEqual([429, 429, 429, 429]);
  });

  it('a key revoked on one node is refused by the other at once, 50 times in a row', async () => {
    const late: number[] = [];
    for (let round = 0; round < 50; round++) {
      const { id, key } = await newKey('read');
      // Node b knows the key (and remembers it) before node a revokes it.
      await withKey(b, key).get('/api/v1/context').expect(200);
      await admin(a).delete(`/admin/v1/keys/${id}`).expect(204);
      const after = await withKey(b, key).get('/api/v1/context');
      if (after.status !== 401) late.push(after.status);
    }
    expect(late).toEqual([]);
  });

  it("an assistant's token issued by one node works on the other, and stops there at once when its grant is revoked, 20 times in a row", async () => {
    const { key } = await newKey('write');
    const late: number[] = [];
    for (let round = 0; round < 20; round++) {
      const tokens = await tokensFor({ url: BALANCED_URL, http: request(a.url) } as TestApp, key);
      // Node b knows the token (and remembers it) before node a revokes its grant.
      await mcpCall({ http: request(b.url) } as TestApp, tokens.access_token, 'tools/list').expect(200);
      const grant = await admin(a).get(`/admin/v1/companies/${companyId}/assistant-grants`).expect(200);
      await admin(a)
        .delete(`/admin/v1/companies/${companyId}/assistant-grants/${grant.body.data[0].id}`)
        .expect(204);
      const after = await mcpCall({ http: request(b.url) } as TestApp, tokens.access_token, 'tools/list');
      if (after.status !== 401) late.push(after.status);
    }
    expect(late).toEqual([]);
  });

  it("an assistant's refresh token is refused by the other node once its key is rotated on one, and its grant is listed as revoked", async () => {
    const { id, key } = await newKey('write');
    const tokens = await tokensFor({ url: BALANCED_URL, http: request(a.url) } as TestApp, key);
    await mcpCall({ http: request(b.url) } as TestApp, tokens.access_token, 'tools/list').expect(200);
    await admin(a).post(`/admin/v1/keys/${id}/rotate`).expect(200);
    const refused = await exchange({ http: request(b.url) } as TestApp, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: tokens.clientId,
    }).expect(400);
    expect(refused.body.error).toBe('invalid_grant');
    await mcpCall({ http: request(b.url) } as TestApp, tokens.access_token, 'tools/list').expect(401);
    const listed = await admin(b).get(`/admin/v1/companies/${companyId}/assistant-grants`).expect(200);
    expect(listed.body.data[0]).toMatchObject({ revoked_at: expect.any(String), ended_by_key: true });
  });

  it('one operation_id sent to both nodes at the same moment saves once', async () => {
    const { key } = await newKey('write');
    for (let round = 0; round < 10; round++) {
      const body = { operation_id: randomUUID(), customer_name: `Twin ${randomUUID().slice(0, 8)}` };
      const answers = await Promise.all([
        withKey(a, key).post('/api/v1/jobs').send(body),
        withKey(b, key).post('/api/v1/jobs').send(body),
      ]);
      expect(answers.map((r) => r.status)).toEqual([201, 201]);
      expect(answers[0].body.id).toBe(answers[1].body.id);
      const found = await withKey(a, key)
        .get(`/api/v1/jobs?q=${encodeURIComponent(body.customer_name)}`)
        .expect(200);
      expect(found.body.data).toHaveLength(1);
    }
  });

  it('a poller of one node sees every write of the other, once', async () => {
    const { key } = await newKey('write');
    const { key: pollerKey } = await newKey('read');
    const start = await withKey(b, pollerKey).get('/api/v1/changes').expect(200);
    let cursor: string = start.body.next_cursor;
    const names = Array.from({ length: 30 }, (_, i) => `Feed ${i}`);
    const writes = Promise.all(
      names.map((name) =>
        withKey(a, key)
          .post('/api/v1/jobs')
          .send({ operation_id: randomUUID(), customer_name: name })
          .expect(201),
      ),
    );
    const seen: string[] = [];
    const deadline = Date.now() + 20_000;
    while (seen.length < names.length && Date.now() < deadline) {
      const page = await withKey(b, pollerKey)
        .get(`/api/v1/changes?cursor=${encodeURIComponent(cursor)}`)
        .expect(200);
      for (const entry of page.body.data as { action: string; summary: string }[])
        if (entry.action === 'job.created') seen.push(entry.summary);
      cursor = page.body.next_cursor;
      if (page.body.data.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await writes;
    expect(seen).toHaveLength(names.length);
    expect(new Set(seen).size).toBe(names.length);
  });
});
