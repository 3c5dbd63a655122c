/** `npm start` as a user runs it: settings checked, demo company printed, clean SIGTERM. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describeOnEmbedded } from '../support/databases';

const root = path.resolve(__dirname, '../..');

interface Started {
  child: ChildProcess;
  output: () => string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

// Every child started, so that a failed test does not leave a service running (and jest waiting).
const children: ChildProcess[] = [];

function start(env: Record<string, string>): Started {
  const { DATABASE_URL: _ignored, ...parentEnv } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...parentEnv, LOG_LEVEL: 'warn', ...env },
  });
  children.push(child);
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, stdout: () => stdout, stderr: () => stderr, exited };
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

describeOnEmbedded('npm start', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'jms-start-'));
  });
  afterEach(() => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

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
    expect(started.output()).toContain(
      `curl -H "Authorization: Bearer ${writeKey}" http://localhost:${port}/api/v1/jobs`,
    );
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // The served spec names this service, not the committed default address.
    const served = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    expect(served.servers[0].url).toBe(`http://localhost:${port}`);

    const jobs = await fetch(`${base}/api/v1/jobs`, { headers: { Authorization: `Bearer ${writeKey}` } });
    expect(jobs.status).toBe(200);
    expect(((await jobs.json()) as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(3);

    // Requests in flight when SIGTERM arrives still get their answers.
    const inFlight = Array.from({ length: 20 }, () =>
      fetch(`${base}/api/v1/jobs?q=Alvarez`, { headers: { Authorization: `Bearer ${writeKey}` } }),
    );
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
    expect(
      (await fetch(`${base}/api/v1/jobs`, { headers: { Authorization: `Bearer ${writeKey}` } })).status,
    ).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 90000);

  it('on a busy port stops with a clear message and creates nothing; the next start makes and prints the demo', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    const busy = start({ PORT: String(port), DATA_DIR: dataDir });
    const code = await busy.exited;
    blocker.close();
    expect(code).not.toBe(0);
    expect(busy.stderr()).toContain(`Cannot listen on 127.0.0.1:${port}: the port is already in use`);
    expect(busy.output()).not.toContain('write key');

    // Nothing was made on the busy start: this one, on the same data dir, makes the demo and shows its keys.
    const free = await freePort();
    const started = start({ PORT: String(free), DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    const [, companyId] = await waitFor(started, /A demo company "[^"]+" \((co_\w+)\) was created/);
    const [, writeKey] = await waitFor(started, /write key: (jms_\w{40})/);
    await waitFor(started, /"mcpServers"/);
    // The banner and keys are on stderr, apart from the JSON log lines on stdout.
    expect(started.stderr()).toContain(companyId);
    expect(started.stdout()).not.toContain(writeKey);
    expect(started.stdout()).not.toContain('Job Management Service on');
    const context = (await (
      await fetch(`http://127.0.0.1:${free}/api/v1/context`, {
        headers: { Authorization: `Bearer ${writeKey}` },
      })
    ).json()) as { company: { id: string } };
    expect(context.company.id).toBe(companyId);

    // A quiet service's log line leaves the process within about a second, not when 4 KiB have gathered.
    const lineCount = () =>
      started
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"/healthz"')).length;
    const before = lineCount();
    await fetch(`http://127.0.0.1:${free}/healthz`);
    const deadline = Date.now() + 2500;
    while (lineCount() === before && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lineCount()).toBe(before + 1);
    for (const line of started.stdout().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();

    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  }, 90000);
});
