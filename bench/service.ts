/** The bench's database and processes: a fresh database, the service or a baseline started on a free port. */
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';

export const root = path.resolve(__dirname, '..');
const BENCH_DB = 'jms_bench';

export interface Target {
  db: 'postgres' | 'pglite';
  databaseUrl?: string;
  dataDir?: string;
  cleanup(): Promise<void>;
}

/** An empty database; on PostgreSQL `name` (dropped first), so that two benches can keep their own. */
export async function freshDatabase(kind: 'postgres' | 'pglite', name = BENCH_DB): Promise<Target> {
  if (kind === 'pglite') {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jms-bench-'));
    return { db: kind, dataDir, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const admin = knex({ client: 'pg', connection: server.toString() });
  await admin.raw(`drop database if exists ${name} with (force)`);
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = new URL(server.toString());
  url.pathname = `/${name}`;
  return { db: kind, databaseUrl: url.toString(), cleanup: async () => undefined };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The Node options `npm start` gives the service (its heap limit, tsx), read from package.json. */
function nodeOptionsOfStart(): string[] {
  const start = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  return start.split(/\s+/).slice(1, -1);
}

/** Starts a server script of the project and waits until its /healthz answers. */
export async function startProcess(
  script: string,
  port: number,
  env: Record<string, string>,
): Promise<ChildProcess> {
  // Logs are written as in production, then dropped: their cost is measured, not their text.
  const child = spawn(process.execPath, [...nodeOptionsOfStart(), script], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${script} did not start`);
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/**
 * The benches that measure what the service can do with files read uploads as fast as they come
 * (`UPLOAD_MB_PER_SECOND=0`); bench:fairness keeps the pace a company gets by default.
 */
export const UNPACED = '0';

export const databaseEnv = (target: Target) => ({
  DATA_DIR: target.dataDir ?? '',
  DATABASE_URL: target.databaseUrl ?? '',
});

/** A company with one person and a write key for them, made through the admin API (`credits` for estimates). */
export async function createWriteKey(
  base: string,
  adminToken: string,
  companyName: string,
  credits = 0,
): Promise<string> {
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const company = await (
    await fetch(`${base}/admin/v1/companies`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: companyName, credits }),
    })
  ).json();
  const person = await (
    await fetch(`${base}/admin/v1/companies/${company.id}/team`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Tech', role: 'Technician' }),
    })
  ).json();
  const key = await (
    await fetch(`${base}/admin/v1/companies/${company.id}/keys`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ person_id: person.id, scope: 'write' }),
    })
  ).json();
  return key.key;
}

export async function createJob(base: string, key: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ operation_id: randomUUID(), customer_name: 'Bench' }),
  });
  return (await res.json()).id;
}
