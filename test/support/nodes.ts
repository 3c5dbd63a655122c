/**
 * Service nodes as separate processes (`src/main.ts`) on the test PostgreSQL database: for what
 * only another process shows, such as a second node, or a node killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { ADMIN_TOKEN } from './app';

const root = path.resolve(__dirname, '../..');

export interface Node {
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a node on DATABASE_URL with the admin token and `env`, and waits until it answers. With
 * REDIS_URL (as CI runs the suite), failed authentications are counted per address across every
 * test process: the rate-limit tests' bad keys must not lock these nodes out, so their limit is
 * lifted unless `env` sets it.
 */
export async function startNode(env: Record<string, string> = {}): Promise<Node> {
  const port = await freePort();
  const unlimited = { AUTH_FAILURES_PER_MINUTE: '100000', AUTH_FAILURES_BURST: '100000' };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: process.env.DATABASE_URL!,
      ADMIN_TOKEN,
      DEMO_SEED: 'false',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...unlimited,
      ...env,
    },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await request(url)
      .get('/healthz')
      .then(
        (res) => res.status === 200,
        () => false,
      );
    if (up) return { url, child, output: () => output };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`node did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Stops nodes (SIGTERM, or SIGKILL as a crash) and waits for their processes to end. */
export async function stopNodes(
  nodes: (Node | undefined)[],
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const running = nodes.filter(
    (node): node is Node =>
      node !== undefined && node.child.exitCode === null && node.child.signalCode === null,
  );
  for (const node of running) node.child.kill(signal);
  await Promise.all(running.map((node) => new Promise((resolve) => node.child.once('exit', resolve))));
}

/** Admin API calls to a node. */
export function adminOf(node: Node) {
  const auth = (req: request.Test) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return {
    get: (p: string) => auth(request(node.url).get(p)),
    post: (p: string) => auth(request(node.url).post(p)),
    delete: (p: string) => auth(request(node.url).delete(p)),
  };
}

/** A company on a node with one owner and a write key for them, made through the admin API. */
export async function companyOnNode(
  node: Node,
  name: string,
  owner: string,
): Promise<{ id: string; key: string }> {
  const admin = adminOf(node);
  const co = (await admin.post('/admin/v1/companies').send({ name, credits: 5 }).expect(201)).body;
  const person = (
    await admin.post(`/admin/v1/companies/${co.id}/team`).send({ name: owner, role: 'Owner' }).expect(201)
  ).body;
  const key = (
    await admin
      .post(`/admin/v1/companies/${co.id}/keys`)
      .send({ person_id: person.id, scope: 'write' })
      .expect(201)
  ).body.key as string;
  return { id: co.id, key };
}
