/**
 * `npm run bench:fast-paths [-- --jobs 2000 --turns 3 --seconds 5]`: what the fast paths save.
 * Two services on one PostgreSQL database (DATABASE_URL's server, a database of its own), one with
 * the fast paths on and one with FAST_WRITES=off and FAST_MCP_CALLS=off, beside the bare
 * baseline (bench/baseline.ts). The cases a ratio compares are measured in turns, interleaved, so
 * that a shared machine's drift falls on all of them alike: create_job on, off and the bare
 * create; get_job over HTTP and over MCP, on and off. Prints each turn's ratios and their mean.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/infrastructure/db/connect';
import { migrateToLatest } from '../src/database';
import { withCpu, type MeasuredServer } from './cpu';
import { loadDataset, newJobRequest } from './dataset';
import { runHttpCase, type CaseResult, type HttpCase } from './measure';
import { checkToolCall, mcpPostCase } from './mcp-load';
import { freePort, freshDatabase, startProcess, stopProcess } from './service';

/** A database of its own, so that the main bench's (jms_bench) is left as it is. */
const BENCH_DB = 'fast_paths_bench';

interface Served {
  label: string;
  server: MeasuredServer;
  base: string;
  spec: HttpCase;
}

async function start(
  script: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = await startProcess(script, port, env);
  return { child, base: `http://127.0.0.1:${port}` };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      jobs: { type: 'string', default: '2000' },
      turns: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '5' },
    },
  });
  const load = { connections: 10, seconds: Number(values.seconds) };
  const warmUp = { connections: 10, seconds: 2 };
  const databaseUrl = (await freshDatabase('postgres', BENCH_DB)).databaseUrl ?? '';
  const db = await openDatabase({ databaseUrl, dataDir: null });
  await migrateToLatest(db);
  const data = await loadDataset(db, Number(values.jobs), console.log);
  await db.destroy();
  const key = data.companies[0].writeKey;
  const common = {
    DATABASE_URL: databaseUrl,
    DEMO_SEED: 'false',
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_BURST: '10000000',
    COMPANY_CONCURRENCY: '64',
    ADMIN_TOKEN: randomUUID(),
  };
  const on = await start('src/main.ts', { ...common, FAST_WRITES: 'on', FAST_MCP_CALLS: 'on' });
  const off = await start('src/main.ts', { ...common, FAST_WRITES: 'off', FAST_MCP_CALLS: 'off' });
  const bare = await start('bench/baseline.ts', { DATABASE_URL: databaseUrl, BASELINE_KEY: key });
  const measured = (child: ChildProcess): MeasuredServer => ({ pid: child.pid!, postgres: true });
  try {
    let numbered = 10 * data.loaded;
    const create = (path: string): HttpCase => ({
      name: path,
      method: 'POST',
      next: () => ({ path, body: newJobRequest(++numbered, randomUUID()) }),
    });
    let sampled = 0;
    const jobId = () => data.sample[sampled++ % data.sample.length].id;
    const getJob: HttpCase = { name: 'get_job', next: () => ({ path: `/api/v1/jobs/${jobId()}` }) };
    const getJobMcp = mcpPostCase('get_job (MCP)', () => ({ tool: 'get_job', args: { job_id: jobId() } }));
    await checkToolCall(on.base, key, 'get_job', { job_id: jobId() });
    await checkToolCall(off.base, key, 'get_job', { job_id: jobId() });
    const groups: { title: string; cases: Served[]; ratios: [string, string, string][] }[] = [
      {
        title: 'create_job',
        cases: [
          { label: 'create on', server: measured(on.child), base: on.base, spec: create('/api/v1/jobs') },
          { label: 'create off', server: measured(off.child), base: off.base, spec: create('/api/v1/jobs') },
          { label: 'bare create', server: measured(bare.child), base: bare.base, spec: create('/jobs') },
        ],
        ratios: [
          ['create_job / bare create, fast paths on', 'create on', 'bare create'],
          ['create_job / bare create, fast paths off', 'create off', 'bare create'],
          ['create_job on / off', 'create on', 'create off'],
        ],
      },
      {
        title: 'get_job',
        cases: [
          { label: 'HTTP', server: measured(on.child), base: on.base, spec: getJob },
          { label: 'MCP on', server: measured(on.child), base: on.base, spec: getJobMcp },
          { label: 'MCP off', server: measured(off.child), base: off.base, spec: getJobMcp },
        ],
        ratios: [
          ['get_job MCP / HTTP, fast paths on', 'MCP on', 'HTTP'],
          ['get_job MCP / HTTP, fast paths off', 'MCP off', 'HTTP'],
          ['get_job MCP on / off', 'MCP on', 'MCP off'],
        ],
      },
    ];
    for (const group of groups) {
      const turns: Map<string, CaseResult>[] = [];
      for (let turn = 0; turn < Number(values.turns); turn++) {
        const results = new Map<string, CaseResult>();
        for (const { label, server, base, spec } of group.cases) {
          await runHttpCase(base, key, spec, warmUp);
          const result = await withCpu(server, () => runHttpCase(base, key, spec, load));
          if (result.errors + result.non2xx)
            throw new Error(`${label}: ${result.errors + result.non2xx} failed requests`);
          results.set(label, result);
          const cpu = (result.cpu?.serverMs ?? 0) + (result.cpu?.databaseMs ?? 0);
          console.log(`  turn ${turn + 1} ${label}: ${result.rps} req/s, ${cpu.toFixed(2)} ms CPU a request`);
        }
        turns.push(results);
      }
      console.log(`\n${group.title}: ratio of requests a second, each turn and mean`);
      for (const [title, a, b] of group.ratios) {
        const each = turns.map((results) => results.get(a)!.rps / results.get(b)!.rps);
        const mean = each.reduce((sum, r) => sum + r, 0) / each.length;
        console.log(
          `  ${title}: ${each.map((r) => `${Math.round(100 * r)}%`).join(', ')}; mean ${Math.round(100 * mean)}%`,
        );
      }
      console.log('');
    }
  } finally {
    for (const { child } of [on, off, bare]) await stopProcess(child);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
