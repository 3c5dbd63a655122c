/**
 * Jobs and their drying logs as MCP resources, in both eras, and their subscriptions in
 * 2026-07-28 (`subscriptions/listen`): reads answer what get_job and get_drying_log answer over
 * HTTP, under the same key rules; a listen is told of a change to its job within 5 s, from the
 * change feed, on whichever node the change was made; it ends once its key is revoked.
 */
import { performance } from 'node:perf_hooks';
import request from 'supertest';
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { connectMcp, MCP_ERAS } from '../support/mcp';
import { tokensFor } from '../support/oauth';
import { openJob, type CreatedJob } from '../support/jobs';
import { describeOnPostgres } from '../support/databases';
import { companyOnNode, startNode, stopNodes, type Node } from '../support/nodes';

jest.setTimeout(120_000);

const CURSOR_META = 'jms/changes_cursor';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let job: CreatedJob;
let secondJob: CreatedJob;
let foreignJob: CreatedJob;

beforeAll(async () => {
  t = await startApp();
  [co, other] = await Promise.all([createCompany(t), createCompany(t)]);
  job = await openJob(t, co.writeKey, { customer_name: 'Maria Alvarez', loss_type: 'water' });
  secondJob = await openJob(t, co.writeKey, { customer_name: 'Leo Brandt' });
  foreignJob = await openJob(t, other.writeKey, { customer_name: 'Other Co customer' });
  await as(t, co.writeKey)
    .post(`/api/v1/jobs/${job.id}/drying-log`)
    .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
    .expect(201);
});

afterAll(async () => {
  await t?.close();
});

const jobUri = (id: string) => `jms://jobs/${id}`;

async function readJson(client: Client, uri: string): Promise<{ uri: string; body: unknown }> {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  const [content] = contents;
  expect(content.mimeType).toBe('application/json');
  if (!('text' in content)) throw new Error('a resource without text');
  return { uri: content.uri, body: JSON.parse(content.text) };
}

/** The JSON-RPC error a read answers. */
async function readError(
  client: Client,
  uri: string,
): Promise<{ code: number; message: string; data: unknown }> {
  const error = await client.readResource({ uri }).then(
    () => null,
    (e: { code: number; message: string; data: unknown }) => e,
  );
  if (!error) throw new Error(`${uri} was read`);
  return { code: error.code, message: error.message, data: error.data };
}

async function addNote(key: string, jobId: string, text: string, at: TestApp | Node = t): Promise<void> {
  await request(at.url)
    .post(`/api/v1/jobs/${jobId}/notes`)
    .set('Authorization', `Bearer ${key}`)
    .send({ operation_id: opId(), text })
    .expect(201);
}

describe.each(MCP_ERAS)('resources in the %s era', (era) => {
  let client: Client;

  beforeAll(async () => {
    client = await connectMcp(t, co.writeKey, { era });
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists the job and drying-log templates', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'jms://jobs/{job}',
      'jms://jobs/{job}/drying-log',
    ]);
  });

  it('reads a job by id or number as get_job answers it, under its canonical URI', async () => {
    const http = (await as(t, co.writeKey).get(`/api/v1/jobs/${job.id}`).expect(200)).body;
    for (const ref of [job.id, String(job.job_number)]) {
      const read = await readJson(client, jobUri(ref));
      expect(read.uri).toBe(jobUri(job.id));
      expect(read.body).toEqual(http);
    }
  });

  it('reads a drying log as get_drying_log answers it', async () => {
    const http = (await as(t, co.writeKey).get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body;
    const read = await readJson(client, `jms://jobs/${job.job_number}/drying-log`);
    expect(read.uri).toBe(`${jobUri(job.id)}/drying-log`);
    expect(read.body).toEqual(http);
  });

  it("answers another company's job and an unknown one alike: resource not found", async () => {
    const unknown = 'job_00000000000000000000000000';
    const errors = await Promise.all(
      [foreignJob.id, unknown, String(foreignJob.job_number + 1000)].map(async (ref) => {
        const uri = jobUri(ref);
        const error = await readError(client, uri);
        expect(error.data).toEqual({ uri });
        return { code: error.code, message: error.message.replace(uri, '<uri>') };
      }),
    );
    expect(errors[0]).toEqual({ code: -32602, message: 'Resource not found: <uri>' });
    expect(errors[1]).toEqual(errors[0]);
    expect(errors[2]).toEqual(errors[0]);
    const drying = await readError(client, `${jobUri(foreignJob.id)}/drying-log`);
    expect(drying.code).toBe(-32602);
  });

  it('answers a job without a drying log, and a URI of no resource, as not found', async () => {
    expect((await readError(client, `${jobUri(secondJob.id)}/drying-log`)).code).toBe(-32602);
    expect((await readError(client, 'jms://jobs/')).code).toBe(-32602);
    expect((await readError(client, 'file:///etc/passwd')).code).toBe(-32602);
  });

  it('says how long a read may be kept, and by whom (2026-07-28): private, a few seconds', async () => {
    const read = (await client.readResource({ uri: jobUri(job.id) })) as {
      ttlMs?: number;
      cacheScope?: string;
    };
    const templates = (await client.listResourceTemplates()) as { ttlMs?: number; cacheScope?: string };
    if (era === 'legacy') {
      expect(read.cacheScope).toBeUndefined();
      return;
    }
    expect({ ttlMs: read.ttlMs, cacheScope: read.cacheScope }).toEqual({
      ttlMs: 5_000,
      cacheScope: 'private',
    });
    expect(templates.cacheScope).toBe('public');
  });

  it('lets a read key read', async () => {
    const reader = await connectMcp(t, co.readKey, { era });
    try {
      expect((await readJson(reader, jobUri(job.id))).uri).toBe(jobUri(job.id));
    } finally {
      await reader.close();
    }
  });

  it("lists the apps' pages, then the company's jobs, newest first, and none of another's", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    const jobs = uris.filter((uri) => uri.startsWith('jms://'));
    expect(uris.slice(0, uris.length - jobs.length).every((uri) => uri.startsWith('ui://'))).toBe(true);
    expect(jobs.slice(0, 2)).toEqual([jobUri(secondJob.id), jobUri(job.id)]);
    expect(uris).not.toContain(jobUri(foreignJob.id));
  });
});

describe('changes in the 2025 era', () => {
  it('are not pushed (no subscribe capability): a 2025 client polls list_changes', async () => {
    const client = await connectMcp(t, co.writeKey, { era: 'legacy' });
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({});
      const before = (await as(t, co.writeKey).get('/api/v1/changes?limit=100').expect(200)).body;
      let cursor = before.next_cursor as string;
      for (let page = before; page.data.length > 0; ) {
        page = (await as(t, co.writeKey).get(`/api/v1/changes?limit=100&cursor=${cursor}`).expect(200)).body;
        cursor = page.next_cursor;
      }
      await addNote(co.writeKey, job.id, 'Polled, not pushed');
      const deadline = Date.now() + 10_000;
      let seen: { job: { id: string } | null; action: string }[] = [];
      while (seen.length === 0 && Date.now() < deadline) {
        const page = await client.callTool({ name: 'list_changes', arguments: { cursor } });
        seen = (page.structuredContent as { data: typeof seen }).data;
        if (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen.map((entry) => [entry.job?.id, entry.action])).toEqual([[job.id, 'note.added']]);
    } finally {
      await client.close();
    }
  });
});

interface Heard {
  uri: string;
  cursor: unknown;
  at: number;
}

/** A modern client listening to `uris`, with what it hears. */
async function listening(
  at: Pick<TestApp, 'url'>,
  key: string,
  uris: string[],
): Promise<{
  client: Client;
  subscription: McpSubscription;
  heard: Heard[];
  next: (timeoutMs: number) => Promise<Heard>;
}> {
  const client = await connectMcp(at, key, { era: 'modern' });
  const heard: Heard[] = [];
  const waiting: ((h: Heard) => void)[] = [];
  client.setNotificationHandler('notifications/resources/updated', async (notification) => {
    const entry = {
      uri: notification.params.uri,
      cursor: (notification.params._meta as Record<string, unknown> | undefined)?.[CURSOR_META],
      at: performance.now(),
    };
    heard.push(entry);
    waiting.shift()?.(entry);
  });
  const subscription = await client.listen({ resourceSubscriptions: uris });
  expect(subscription.honoredFilter.resourceSubscriptions).toEqual(uris);
  const next = (timeoutMs: number) =>
    new Promise<Heard>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nothing heard within ${timeoutMs} ms`)), timeoutMs);
      waiting.push((h) => {
        clearTimeout(timer);
        resolve(h);
      });
    });
  return { client, subscription, heard, next };
}

describe('subscriptions/listen (2026-07-28)', () => {
  const admin = (req: request.Test) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  it('tells a listener of a change to its job within 5 s, with the feed cursor, and not of another job', async () => {
    const { client, subscription, heard, next } = await listening(t, co.readKey, [jobUri(job.id)]);
    try {
      // Another job first: were it told, it would be what is heard first.
      await addNote(co.writeKey, secondJob.id, 'Not this one');
      const started = performance.now();
      const heardNext = next(5_000);
      await addNote(co.writeKey, job.id, 'Customer called back');
      const first = await heardNext;
      const latencyMs = Math.round(first.at - started);
      console.log(`resource_updated heard ${latencyMs} ms after add_note was sent`);
      expect(first.uri).toBe(jobUri(job.id));
      expect(latencyMs).toBeLessThan(5_000);
      expect(heard.every((h) => h.uri === jobUri(job.id))).toBe(true);
      // The cursor is list_changes' own: reading from it gives what came after that note.
      expect(typeof first.cursor).toBe('string');
      await addNote(co.writeKey, secondJob.id, 'After the cursor');
      const deadline = Date.now() + 10_000;
      let after: { summary: string; job: { id: string } }[] = [];
      while (after.length === 0 && Date.now() < deadline) {
        after = (await as(t, co.readKey).get(`/api/v1/changes?cursor=${first.cursor}`).expect(200)).body.data;
      }
      expect(after.map((entry) => entry.job.id)).toEqual([secondJob.id]);
    } finally {
      await subscription.close();
      await client.close();
    }
  });

  it("refuses a listen naming another company's job, an unknown one or a job by number", async () => {
    const client = await connectMcp(t, co.writeKey, { era: 'modern' });
    try {
      for (const uri of [
        jobUri(foreignJob.id),
        `${jobUri(foreignJob.id)}/drying-log`,
        jobUri('job_00000000000000000000000000'),
        jobUri(String(job.job_number)),
      ]) {
        const refused = await client.listen({ resourceSubscriptions: [jobUri(job.id), uri] }).then(
          () => null,
          (error: { code: number; message: string }) => error,
        );
        expect(refused?.code).toBe(-32602);
        expect(refused?.message).toContain(uri);
      }
    } finally {
      await client.close();
    }
  });

  it('refuses a listen on a drying log to an assistant whose grant leaves out the drying toolset', async () => {
    const tokens = await tokensFor(t, co.writeKey, {
      clientName: 'Jobs-only Bot',
      chosenScope: 'read',
      toolsets: ['jobs'],
    });
    const client = await connectMcp(t, tokens.access_token, { era: 'modern' });
    try {
      const jobOnly = await client.listen({ resourceSubscriptions: [jobUri(job.id)] });
      await jobOnly.close();
      const refused = await client.listen({ resourceSubscriptions: [`${jobUri(job.id)}/drying-log`] }).then(
        () => null,
        (error: { message: string }) => error,
      );
      expect(refused?.message).toMatch(/get_drying_log is not among the toolsets approved/);
    } finally {
      await client.close();
    }
  });

  /** A credential to listen with, and the way to revoke it. */
  const credentials: [string, () => Promise<{ secret: string; revoke: () => Promise<unknown> }>][] = [
    [
      'its key is revoked',
      async () => {
        const created = (
          await admin(t.http.post(`/admin/v1/companies/${co.id}/keys`))
            .send({ person_id: co.people[0].id, scope: 'read' })
            .expect(201)
        ).body as { id: string; key: string };
        return {
          secret: created.key,
          revoke: () => admin(t.http.delete(`/admin/v1/keys/${created.id}`)).expect(204),
        };
      },
    ],
    [
      "the assistant's grant is revoked",
      async () => {
        const tokens = await tokensFor(t, co.writeKey, { clientName: 'Listening Bot', chosenScope: 'read' });
        const grants = (await admin(t.http.get(`/admin/v1/companies/${co.id}/assistant-grants`)).expect(200))
          .body.data as { id: string; client: { name: string } }[];
        const grant = grants.find((g) => g.client.name === 'Listening Bot')!;
        return {
          secret: tokens.access_token,
          revoke: () =>
            admin(t.http.delete(`/admin/v1/companies/${co.id}/assistant-grants/${grant.id}`)).expect(204),
        };
      },
    ],
  ];

  it.each(credentials)('ends the stream within 15 s once %s', async (what, credential) => {
    const { secret, revoke } = await credential();
    const { client, subscription } = await listening(t, secret, [jobUri(job.id)]);
    try {
      const revokedAt = performance.now();
      await revoke();
      let timer: NodeJS.Timeout | undefined;
      const reason = await Promise.race([
        subscription.closed,
        new Promise((resolve) => {
          timer = setTimeout(() => resolve('still open'), 15_000);
        }),
      ]).finally(() => clearTimeout(timer));
      console.log(`listen stream ended ${Math.round(performance.now() - revokedAt)} ms after ${what}`);
      expect(reason).not.toBe('still open');
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});

describeOnPostgres('subscriptions across nodes (PostgreSQL: a second node is a second process)', () => {
  let nodes: Node[] = [];

  afterAll(async () => {
    await stopNodes(nodes);
  });

  it('tells a listener on node A of a change made on node B within 5 s', async () => {
    nodes = await Promise.all([startNode(), startNode()]);
    const [a, b] = nodes;
    const company = await companyOnNode(b, 'Two Nodes Restoration', 'Ana Lima');
    const made = (
      await request(b.url)
        .post('/api/v1/jobs')
        .set('Authorization', `Bearer ${company.key}`)
        .send({ operation_id: opId(), customer_name: 'Across nodes' })
        .expect(201)
    ).body as CreatedJob;
    const { client, subscription, next } = await listening(a, company.key, [`${jobUri(made.id)}/drying-log`]);
    try {
      const started = performance.now();
      const heardNext = next(5_000);
      await addNote(company.key, made.id, 'Written on node B', b);
      const first = await heardNext;
      console.log(`across nodes: heard ${Math.round(first.at - started)} ms after add_note on node B`);
      expect(first.uri).toBe(`${jobUri(made.id)}/drying-log`);
    } finally {
      await subscription.close();
      await client.close();
    }
  });
});
