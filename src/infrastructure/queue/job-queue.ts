/**
 * The durable job queue every node shares: pg-boss on the service's own database (PostgreSQL,
 * or PGlite on one node), reached through knex, so that a job can be queued in the transaction
 * of the write that asks for it. Any node takes any job. A job whose node dies stays active
 * until its `expireInSeconds` pass; pg-boss's maintenance (every `maintenanceSeconds`) then
 * fails it and it is retried by whichever node fetches it next.
 *
 * Each node runs its own fetch loop per kind: pg-boss's work() fetches one batch per polling
 * interval (measured here: 40 jobs a second), while fetching again as soon as a batch is done
 * drains 1,370 a second. The loop sleeps `pollMs` when the queue is empty, and wakes at once for
 * a job sent on this node or, on PostgreSQL, announced by another node (NOTIFY).
 *
 * Fairness between companies: a job's priority is minus the number of its company's jobs of the
 * same kind still waiting when it is sent. A company that queues 200 pages holds another
 * company's first page back by at most the jobs already running.
 *
 * When a node stops, its running jobs are told through their AbortSignal; a job that ends cut
 * short, and a job fetched but not started, is released: queued again as it was (same data, same
 * singleton key, same priority) for another node, and only then cancelled here, so that a node
 * dying in between leaves at worst one extra run, never none. It does not count as a failure.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { executorOf } from './sql-executor';

export interface QueueSettings {
  /** How long an idle node waits before it looks for jobs again. */
  pollMs: number;
  /** How often expired jobs (their node died) are failed for a retry. */
  maintenanceSeconds: number;
  /** Jobs of one company a node runs at once, per kind. */
  perCompany: number;
  /** PostgreSQL's URL, to hear other nodes' jobs at once; without it (PGlite) the node polls. */
  databaseUrl?: string;
  /** The database schema of the queue's tables: nodes that share one share the queue. */
  schema: string;
}

/** What every job carries: the company it works for, for fairness. */
export interface JobData {
  companyId: string;
}

export interface JobKind<Data extends JobData> {
  name: string;
  /** Jobs of this kind a node runs at once. */
  concurrency: number;
  /** A running job not done within this time counts as dead and is run again. */
  expireInSeconds: number;
  retryLimit: number;
  retryDelaySeconds: number;
  /** 'short': a job with the same singleton key that is still waiting makes a new one a no-op. */
  policy?: 'standard' | 'short';
  /** What shares `perCompany` on a node: the job's company unless the kind says otherwise. */
  shareOf?: (data: Data) => string;
  /** `signal` is aborted when the node stops: a job that can stop early should, and then throw. */
  run(data: Data, signal: AbortSignal): Promise<void>;
}

export interface QueueDepth {
  waiting: number;
  running: number;
  oldest_waiting_seconds: number;
}

const NOTIFY_CHANNEL = 'jms_jobs';
const QUEUE_SETUP_ATTEMPTS = 5;

export class JobQueue {
  private readonly kinds = new Map<string, Loop>();
  private listener: pg.Client | null = null;

  private constructor(
    private readonly db: Knex,
    private readonly boss: PgBoss,
    private readonly settings: QueueSettings,
    private readonly log: Logger,
  ) {}

  static async start(db: Knex, settings: QueueSettings, log: Logger): Promise<JobQueue> {
    const boss = new PgBoss({
      db: executorOf(db),
      schema: settings.schema,
      supervise: true,
      schedule: false,
      maintenanceIntervalSeconds: settings.maintenanceSeconds,
    });
    boss.on('error', (error: Error) => log.warn({ err: error }, 'job queue'));
    await boss.start();
    const queue = new JobQueue(db, boss, settings, log);
    if (settings.databaseUrl) await queue.listen(settings.databaseUrl);
    return queue;
  }

  /** Creates the kind's queue if it is new and, unless `take` is false, starts taking its jobs on this node. */
  async register<Data extends JobData>(kind: JobKind<Data>, options: { take?: boolean } = {}): Promise<void> {
    await this.createQueue(kind);
    if (options.take === false) return;
    const loop = new Loop(this.boss, kind as unknown as JobKind<JobData>, this.settings, this.log);
    this.kinds.set(kind.name, loop);
    loop.start();
  }

  /**
   * Queues a job; with `db` a transaction, only if that transaction commits. `singletonKey` with
   * a 'short' kind queues it once while one is waiting, and with `onceIn` (seconds) it is queued
   * once in each such period whoever asks; `startAfter` holds it until then. Resolves with the
   * job's id (null when an equal job was already waiting).
   */
  async send<Data extends JobData>(
    name: string,
    data: Data,
    options: { db?: Knex; singletonKey?: string; startAfter?: Date; onceIn?: number } = {},
  ): Promise<string | null> {
    const db = options.db ?? this.db;
    const { rows } = (await db.raw(
      `select count(*)::int as waiting from ${this.settings.schema}.job where name = ? and state < 'active' and data->>'companyId' = ?`,
      [name, data.companyId],
    )) as { rows: { waiting: number }[] };
    const id = await this.boss.send(
      name,
      data as object,
      {
        priority: -rows[0].waiting,
        singletonKey: options.singletonKey,
        singletonSeconds: options.onceIn,
        startAfter: options.startAfter,
        db: executorOf(db),
      } as PgBoss.SendOptions,
    );
    this.wake(name);
    if (this.settings.databaseUrl) await db.raw('select pg_notify(?, ?)', [this.channel, name]);
    return id;
  }

  /** Waiting and running jobs per kind, and how long the oldest has waited. */
  async depth(): Promise<Record<string, QueueDepth>> {
    const { rows } = (await this.db.raw(
      `select name, count(*) filter (where state < 'active')::int as waiting, count(*) filter (where state = 'active')::int as running,
              coalesce(extract(epoch from now() - min(created_on) filter (where state < 'active')), 0)::float8 as oldest
       from ${this.settings.schema}.job where state <= 'active' group by name`,
    )) as { rows: { name: string; waiting: number; running: number; oldest: number }[] };
    const depth: Record<string, QueueDepth> = {};
    for (const name of this.kinds.keys()) depth[name] = { waiting: 0, running: 0, oldest_waiting_seconds: 0 };
    for (const row of rows)
      depth[row.name] = {
        waiting: row.waiting,
        running: row.running,
        oldest_waiting_seconds: Math.round(row.oldest * 10) / 10,
      };
    return depth;
  }

  /**
   * Stops fetching and tells the running jobs to stop (their AbortSignal); the jobs fetched but
   * not started, and those cut short, are released for another node. Resolves when none runs.
   */
  async stopTaking(): Promise<void> {
    await Promise.all([...this.kinds.values()].map((loop) => loop.stop()));
  }

  /** Stops taking jobs, then stops pg-boss. */
  async stop(): Promise<void> {
    await this.stopTaking();
    await this.listener?.end().catch(() => undefined);
    await this.boss.stop({ graceful: false, wait: true, close: false });
  }

  /**
   * Creates the kind's queue unless it exists. Nodes starting together may create it at the same
   * moment: the one that loses (a deadlock or a duplicate) finds it made by the other.
   */
  private async createQueue(
    kind: Pick<JobKind<JobData>, 'name' | 'policy' | 'retryLimit' | 'retryDelaySeconds' | 'expireInSeconds'>,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (await this.boss.getQueue(kind.name)) return;
      try {
        await this.boss.createQueue(kind.name, {
          name: kind.name,
          policy: kind.policy ?? 'standard',
          retryLimit: kind.retryLimit,
          retryDelay: kind.retryDelaySeconds,
          retryBackoff: true,
          expireInSeconds: kind.expireInSeconds,
        });
        return;
      } catch (error) {
        if (attempt === QUEUE_SETUP_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
      }
    }
  }

  /** Nodes of one queue (one schema) hear each other only. */
  private get channel(): string {
    return `${NOTIFY_CHANNEL}_${this.settings.schema}`;
  }

  private wake(name: string): void {
    this.kinds.get(name)?.wake();
  }

  /** Hears jobs other nodes send, so that an idle node takes them at once. */
  private async listen(databaseUrl: string): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'jms-job-listener' });
    client.on('notification', (message) => this.wake(message.payload ?? ''));
    client.on('error', (error) => this.log.warn({ err: error }, 'job listener'));
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    this.listener = client;
  }
}

/** One kind's jobs on this node: fetched while there is room, run, completed or failed. */
class Loop {
  private running = 0;
  private readonly byShare = new Map<string, number>();
  /** Fetched jobs whose company has its share of this node running: they wait here, in order. */
  private readonly held: PgBoss.JobWithMetadata<JobData>[] = [];
  private readonly stopping = new AbortController();
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private done: Promise<void> = Promise.resolve();
  private ended: Promise<void> = Promise.resolve();

  constructor(
    private readonly boss: PgBoss,
    private readonly kind: JobKind<JobData>,
    private readonly settings: QueueSettings,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.done = this.loop();
  }

  wake(): void {
    this.wakeUp?.();
  }

  /** Stops fetching, releases the jobs not started, tells the running ones and waits for them to end. */
  async stop(): Promise<void> {
    if (this.stopped) return this.ended;
    this.ended = this.end();
    return this.ended;
  }

  private async end(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.wake();
    await this.done;
    await Promise.all(this.held.splice(0).map((job) => this.release(job)));
    while (this.running > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const room = this.kind.concurrency - this.running - this.held.length;
      const jobs =
        room > 0
          ? await this.boss.fetch<JobData>(this.kind.name, { batchSize: room, includeMetadata: true })
          : [];
      for (const job of jobs) this.take(job);
      if (jobs.length === 0 || jobs.length < room) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.resolveSleep(resolve), this.settings.pollMs);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.resolveSleep(resolve);
      };
    });
  }

  private resolveSleep(resolve: () => void): void {
    this.wakeUp = null;
    resolve();
  }

  private shareOf(job: PgBoss.Job<JobData>): string {
    return this.kind.shareOf?.(job.data) ?? job.data.companyId;
  }

  private take(job: PgBoss.JobWithMetadata<JobData>): void {
    if (this.stopped) return void this.release(job);
    if ((this.byShare.get(this.shareOf(job)) ?? 0) >= this.settings.perCompany) this.held.push(job);
    else void this.run(job);
  }

  private async run(job: PgBoss.JobWithMetadata<JobData>): Promise<void> {
    const share = this.shareOf(job);
    this.running++;
    this.byShare.set(share, (this.byShare.get(share) ?? 0) + 1);
    try {
      await this.kind.run(job.data, this.stopping.signal);
      await this.boss.complete(this.kind.name, job.id);
    } catch (error) {
      if (this.stopped) await this.release(job);
      else {
        this.log.warn({ err: error, job: job.id, kind: this.kind.name }, 'job failed; it is retried later');
        await this.boss
          .fail(this.kind.name, job.id, { message: (error as Error).message })
          .catch(() => undefined);
      }
    } finally {
      this.running--;
      const left = this.byShare.get(share)! - 1;
      if (left === 0) this.byShare.delete(share);
      else this.byShare.set(share, left);
      this.runNextHeld(share);
      this.wake();
    }
  }

  /** Runs the first held job whose company (or the kind's share) now has room. */
  private runNextHeld(share: string): void {
    if (this.stopped) return;
    const next = this.held.findIndex((job) => this.shareOf(job) === share);
    if (next >= 0) void this.run(this.held.splice(next, 1)[0]);
  }

  /**
   * Gives a job this node will not run back to the queue: a copy is queued first (a waiting job
   * with the same singleton key makes it a no-op: that one stands for it), then this one is
   * cancelled, so that a node dying in between leaves an extra run rather than none.
   */
  private async release(job: PgBoss.JobWithMetadata<JobData>): Promise<void> {
    try {
      await this.boss.send(this.kind.name, job.data, {
        priority: job.priority,
        ...(job.singletonKey ? { singletonKey: job.singletonKey } : {}),
      });
      await this.boss.cancel(this.kind.name, job.id);
    } catch (error) {
      this.log.warn(
        { err: error, job: job.id, kind: this.kind.name },
        'could not release a job; it runs again once it expires',
      );
    }
  }
}
