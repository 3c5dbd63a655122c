/**
 * `npm run bench:queues`: the two job queues the durable-work issue named, measured on this
 * machine's PostgreSQL (DATABASE_URL, else the local server) with jobs that do nothing:
 *   - pg-boss, as the service runs it (src/infrastructure/queue/job-queue.ts: each send counts
 *     the company's waiting jobs for its priority; a fetch loop per kind);
 *   - graphile-worker, with its own runner.
 * For each: jobs queued a second, one call at a time; jobs run a second, 4 at once, from a queue
 * of 2,000; and the wait from queueing a job to its handler on an idle queue (200 jobs 25 ms
 * apart). Whether each runs on PGlite, the embedded default, is said, not measured: graphile-
 * worker needs a pg connection with LISTEN, pg-boss takes the service's own SQL adapter.
 */
import knex, { type Knex } from 'knex';
import { pino } from 'pino';
import { Logger, makeWorkerUtils, run, type Runner } from 'graphile-worker';
import { JobQueue } from '../src/infrastructure/queue/job-queue';
import { freshDatabase } from './service';
import { percentile } from './measure';

const QUEUED = 2000;
const CONCURRENCY = 4;
const SPACED = 200;
const SPACING_MS = 25;

interface QueueUnderTest {
  name: string;
  send(): Promise<void>;
  /** Starts running jobs; each calls `done` as its handler begins. */
  work(done: () => void): Promise<void>;
  close(): Promise<void>;
}

interface Figures {
  name: string;
  queuedPerSecond: number;
  ranPerSecond: number;
  waitP50: number;
  waitP95: number;
}

async function measure(open: () => Promise<QueueUnderTest>): Promise<Figures> {
  const queue = await open();
  try {
    let started = performance.now();
    for (let i = 0; i < QUEUED; i++) await queue.send();
    const queuedPerSecond = QUEUED / ((performance.now() - started) / 1000);

    let ran = 0;
    let onRun: () => void = () => {};
    const allRan = new Promise<void>((resolve) => {
      onRun = () => {
        ran += 1;
        if (ran === QUEUED) resolve();
      };
    });
    started = performance.now();
    await queue.work(() => onRun());
    await allRan;
    const ranPerSecond = QUEUED / ((performance.now() - started) / 1000);

    // The queue is idle now: each job's wait is from its send to its handler.
    const waits: number[] = [];
    for (let i = 0; i < SPACED; i++) {
      const sent = performance.now();
      const handled = new Promise<void>((resolve) => (onRun = resolve));
      await queue.send();
      await handled;
      waits.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, SPACING_MS));
    }
    waits.sort((a, b) => a - b);
    return {
      name: queue.name,
      queuedPerSecond,
      ranPerSecond,
      waitP50: percentile(waits, 50),
      waitP95: percentile(waits, 95),
    };
  } finally {
    await queue.close();
  }
}

async function pgBoss(databaseUrl: string): Promise<QueueUnderTest> {
  const db: Knex = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } });
  const settings = {
    pollMs: 1000,
    maintenanceSeconds: 60,
    perCompany: CONCURRENCY,
    schema: 'pgboss',
    databaseUrl,
  };
  const queue = await JobQueue.start(db, settings, pino({ level: 'warn' }));
  let done: () => void = () => {};
  const kind = {
    name: 'noop',
    concurrency: CONCURRENCY,
    expireInSeconds: 60,
    retryLimit: 0,
    retryDelaySeconds: 1,
    run: async () => done(),
  };
  await queue.register(kind, { take: false });
  return {
    name: "pg-boss 10 (the service's JobQueue)",
    send: async () => void (await queue.send('noop', { companyId: 'co_bench' })),
    work: async (handler) => {
      done = handler;
      await queue.register(kind);
    },
    close: async () => {
      await queue.stop();
      await db.destroy();
    },
  };
}

/** graphile-worker logs every job at info; only its warnings are shown. */
const quiet = new Logger(() => (level, message) => {
  if (level === 'warning' || level === 'error') console.warn(message);
});

async function graphileWorker(databaseUrl: string): Promise<QueueUnderTest> {
  const utils = await makeWorkerUtils({ connectionString: databaseUrl, logger: quiet });
  await utils.migrate();
  let runner: Runner | null = null;
  return {
    name: 'graphile-worker 0.16',
    send: async () => void (await utils.addJob('noop', { companyId: 'co_bench' })),
    work: async (handler) => {
      runner = await run({
        connectionString: databaseUrl,
        logger: quiet,
        concurrency: CONCURRENCY,
        noHandleSignals: true,
        pollInterval: 1000,
        taskList: { noop: async () => handler() },
      });
    },
    close: async () => {
      await runner?.stop();
      await utils.release();
    },
  };
}

async function main(): Promise<void> {
  const rows: Figures[] = [];
  for (const open of [pgBoss, graphileWorker]) {
    const target = await freshDatabase('postgres');
    try {
      rows.push(await measure(() => open(target.databaseUrl!)));
    } finally {
      await target.cleanup();
    }
  }
  console.log(
    `\nno-op jobs on PostgreSQL; ${QUEUED} queued one call at a time, then run ${CONCURRENCY} at once; then ${SPACED} sent ${SPACING_MS} ms apart to an idle queue`,
  );
  console.log(
    'queue                                   queued/s   ran/s   wait p50 ms   wait p95 ms   runs on PGlite',
  );
  for (const f of rows) {
    const pglite = f.name.startsWith('pg-boss') ? 'yes (SQL adapter)' : 'no (needs pg + LISTEN)';
    console.log(
      `${f.name.padEnd(40)}${f.queuedPerSecond.toFixed(0).padStart(8)}${f.ranPerSecond.toFixed(0).padStart(8)}${f.waitP50.toFixed(1).padStart(14)}${f.waitP95.toFixed(1).padStart(14)}   ${pglite}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
