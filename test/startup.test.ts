/** `npm start` as a user runs it: settings checked, demo company printed, clean SIGTERM. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Started {
  const { DATABASE_URL: _ignored, ...parentEnv } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env: { ...parentEnv, LOG_LEVEL: 'warn', ...env } });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(started: Started, pattern: RegExp, ms = 30000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const match = started.output().match(pattern);
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${pattern}; output:\n${started.output()}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('npm start', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'jms-start-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stops with a clear message on a bad setting', async () => {
    const started = start({ PORT: 'eighty', DATABASE_URL: 'mysql://nope', DATA_DIR: dataDir });
    expect(await started.exited).toBe(1);
    expect(started.output()).toContain('Invalid settings');
    expect(started.output()).toMatch(/PORT: /);
    expect(started.output()).toMatch(/DATABASE_URL: /);
  });

  it('creates a demo company on an empty data dir, serves it, and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const started = start({ PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: `http://localhost:${port}` });
    const [, writeKey] = await waitFor(started, /write key: (jms_\w{40})/);
    await waitFor(started, /"mcpServers"/);
    expect(started.output()).toContain(`curl -H "Authorization: Bearer ${writeKey}" http://localhost:${port}/api/v1/jobs`);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    const jobs = await fetch(`${base}/api/v1/jobs`, { headers: { Authorization: `Bearer ${writeKey}` } });
    expect(jobs.status).toBe(200);
    expect(((await jobs.json()) as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(3);

    // Requests in flight when SIGTERM arrives still get their answers.
    const inFlight = Array.from({ length: 20 }, () => fetch(`${base}/api/v1/jobs?q=Alvarez`, { headers: { Authorization: `Bearer ${writeKey}` } }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    started.child.kill('SIGTERM');
    const answers = await Promise.allSettled(inFlight);
    expect(await started.exited).toBe(0);
    const statuses = answers.map((a) => (a.status === 'fulfilled' ? a.value.status : 'refused'));
    expect(statuses.filter((s) => s === 200 || s === 'refused')).toHaveLength(20);
    expect(statuses).toContain(200);

    // A second start on the same data dir keeps the data and makes no new demo company.
    const again = start({ PORT: String(port), DATA_DIR: dataDir });
    await waitFor(again, /Job Management Service on/);
    expect(again.output()).not.toContain('write key');
    expect((await fetch(`${base}/api/v1/jobs`, { headers: { Authorization: `Bearer ${writeKey}` } })).status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 90000);
});
