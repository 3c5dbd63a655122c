/**
 * Delivers the chat outbox, fairly: each company's webhook URL is a lane, and a slow or dead
 * webhook holds up only its own lane, not the other companies' notes.
 *
 * - A message may be taken when it is due and among the oldest `CHAT_MAX_IN_FLIGHT_PER_TARGET`
 *   (default 1) unsettled messages of its lane. The rule is read from the table, so it holds
 *   across nodes; with 1, a lane's messages are posted one at a time in the order they were
 *   queued, and a message waiting for its retry keeps the later ones behind it (the chat reads in
 *   order; a dead webhook's backlog waits rather than failing message by message).
 * - Taking a message leases it: its next attempt moves a minute ahead, in the same statement that
 *   locks it (SKIP LOCKED), so no other node takes it meanwhile, and after a crash it is taken
 *   again once the lease runs out. A post's deadline (10 s) is well inside the lease.
 * - A post cut short because the node stops gives its message back: the attempt is not counted
 *   and the message is due at once, for another node.
 * Lanes are a company's URLs rather than hosts, since many companies' webhooks share one host
 * (Slack's), and a company's rather than anyone's, so that no company waits behind another.
 *
 * On a node, deliveries run as jobs of the durable queue, one company at a time per job: a
 * note's outbox row is queued with a job for its company in the same transaction (./outbox.ts),
 * and a job that leaves a retry waiting queues one for the time it is due. The queue shares a
 * node's jobs between companies (JOBS_PER_COMPANY each), so a company whose webhook takes its
 * time holds at most its own share of the `CHAT_MAX_IN_FLIGHT` jobs a node runs at once. Any
 * node takes any job; the leases above keep two from posting one row.
 *
 * `runOnce` and polling take due messages of every company at once, up to `CHAT_MAX_IN_FLIGHT`
 * posts under way: a worker for tests and tools that drive delivery themselves.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import { ForbiddenTarget, postJson } from '../../platform/webhook-target';
import type { JobKind, JobData, JobQueue } from '../../infrastructure/queue/job-queue';

const LEASE_SECONDS = 60;
const MAX_ATTEMPTS = 12;
const MAX_DELAY_MS = 10 * 60_000;
const TIMEOUT_MS = 10_000;

export interface ChatDelivery {
  /** Takes what is due now (as free slots allow) and resolves, once those are tried, with how many. */
  runOnce(): Promise<number>;
  /**
   * Delivers one company's due messages, lane by lane in order, until none is due; then queues a
   * job for its next retry. Throws once `signal` is aborted (the posts under way are given back).
   */
  deliverCompany(companyId: string, signal: AbortSignal): Promise<void>;
  /** Stops taking messages and cuts the posts under way short (their messages are given back). */
  stop(): Promise<void>;
}

interface Claimed {
  id: string;
  webhook_url: string;
  payload: unknown;
  attempts: number;
}

/** A delivery cut short because the node stops: its job is released, not failed. */
export class DeliveryStopped extends Error {
  constructor() {
    super('the node is stopping');
  }
}

export function startChatDelivery(
  deps: { db: Knex; config: Config; logger: Logger; queue?: JobQueue },
  options: { poll?: boolean } = {},
): ChatDelivery {
  const { db, config, logger } = deps;
  const poll = options.poll !== false;
  const underWay = new Set<Promise<void>>();
  const stopping = new AbortController();
  let claiming: Promise<Promise<void>[]> | null = null;
  let claimAgain = false;

  const unsettled = (query: Knex.QueryBuilder) => query.whereNull('delivered_at').whereNull('failed_at');

  /** The unsettled messages (of one company, or all) that head their lane. */
  function laneHeads(companyId: string | null): Knex.QueryBuilder {
    const rows = unsettled(db('chat_outbox')).select(
      'id',
      'next_attempt_at',
      db.raw('row_number() over (partition by company_id, webhook_url order by created_at, id) as place'),
    );
    if (companyId !== null) rows.where('company_id', companyId);
    return db.from(rows.as('lane')).where('place', '<=', config.chat.maxInFlightPerTarget);
  }

  async function claimDue(limit: number, companyId: string | null): Promise<Claimed[]> {
    const eligible = laneHeads(companyId)
      .where('next_attempt_at', '<=', db.fn.now())
      .orderBy('next_attempt_at')
      .limit(limit)
      .select('id');
    // Due again in the locking query: a row another node leased after this statement's snapshot
    // is re-read under the lock and then fails it.
    const locked = unsettled(db('chat_outbox'))
      .whereIn('id', eligible)
      .where('next_attempt_at', '<=', db.fn.now())
      .forUpdate()
      .skipLocked()
      .select('id');
    return db('chat_outbox')
      .whereIn('id', locked)
      .update({
        attempts: db.raw('attempts + 1'),
        next_attempt_at: db.raw(`now() + interval '${LEASE_SECONDS} seconds'`),
      })
      .returning(['id', 'webhook_url', 'payload', 'attempts']);
  }

  async function deliver(message: Claimed, signal: AbortSignal): Promise<void> {
    const payload = typeof message.payload === 'string' ? JSON.parse(message.payload) : message.payload;
    let failure: string | null = null;
    let refused = false;
    try {
      const status = await postJson(message.webhook_url, payload, {
        allowPrivate: config.chat.allowPrivateTargets,
        timeoutMs: TIMEOUT_MS,
        signal,
      });
      if (status < 200 || status >= 300) failure = `the webhook answered ${status}`;
    } catch (error) {
      refused = error instanceof ForbiddenTarget;
      const reason = error instanceof Error ? error.message : String(error);
      failure = refused ? `target refused: ${reason} (CHAT_ALLOW_PRIVATE_TARGETS is off)` : reason;
    }
    // Only the holder of this attempt's lease records its outcome.
    const leased = db('chat_outbox').where({ id: message.id, attempts: message.attempts });
    if (failure === null) {
      await leased.update({ delivered_at: db.fn.now(), last_error: null });
      return;
    }
    // Cut short by the node's stop: not an attempt of the message's; due at once for another node.
    if (signal.aborted) {
      await leased.update({ attempts: db.raw('attempts - 1'), next_attempt_at: db.fn.now() });
      return;
    }
    // A refused target stays refused: retrying would only repeat the refusal.
    const giveUp = refused || message.attempts >= MAX_ATTEMPTS;
    const delay = Math.min(config.chat.retryBaseMs * 2 ** (message.attempts - 1), MAX_DELAY_MS);
    logger.warn(
      { message: message.id, attempts: message.attempts, reason: failure, giveUp },
      'chat delivery failed',
    );
    await leased.update({
      last_error: failure,
      ...(giveUp ? { failed_at: db.fn.now() } : { next_attempt_at: new Date(Date.now() + delay) }),
    });
  }

  function track(delivery: Promise<void>, id: string): Promise<void> {
    const tracked: Promise<void> = delivery
      .catch((error: unknown) => logger.error({ err: error, message: id }, 'chat delivery'))
      .finally(() => underWay.delete(tracked));
    underWay.add(tracked);
    return tracked;
  }

  function start(message: Claimed): Promise<void> {
    return track(
      deliver(message, stopping.signal).finally(() => {
        // A freed slot may let the lane's next message (or a waiting lane) go now, not at the next poll.
        if (poll && !stopping.signal.aborted)
          void claim().catch((error: unknown) => logger.error({ err: error }, 'chat delivery'));
      }),
      message.id,
    );
  }

  /** Fills the free slots; one claim at a time per node, repeated if asked again meanwhile. */
  function claim(): Promise<Promise<void>[]> {
    if (claiming) {
      claimAgain = true;
      return claiming;
    }
    claiming = (async () => {
      const started: Promise<void>[] = [];
      do {
        claimAgain = false;
        const free = config.chat.maxInFlight - underWay.size;
        if (stopping.signal.aborted || free <= 0) break;
        started.push(...(await claimDue(free, null)).map(start));
      } while (claimAgain);
      return started;
    })().finally(() => (claiming = null));
    return claiming;
  }

  async function runOnce(): Promise<number> {
    const started = await claim();
    await Promise.all(started);
    return started.length;
  }

  async function deliverCompany(companyId: string, jobSignal: AbortSignal): Promise<void> {
    const signal = AbortSignal.any([jobSignal, stopping.signal]);
    for (;;) {
      if (signal.aborted) throw new DeliveryStopped();
      const claimed = await claimDue(config.chat.maxInFlightPerTarget, companyId);
      if (claimed.length === 0) break;
      await Promise.all(claimed.map((message) => track(deliver(message, signal), message.id)));
    }
    await queueNextTry(companyId);
  }

  /** One waiting job per company and second of retry time: an earlier retry is never held behind a later one. */
  async function queueNextTry(companyId: string): Promise<void> {
    if (!deps.queue) return;
    const next = (await laneHeads(companyId).min('next_attempt_at as at').first()) as
      | { at: Date | string | null }
      | undefined;
    if (!next?.at) return;
    const at = new Date(next.at);
    await deps.queue.send<JobData>(
      CHAT_DELIVERY,
      { companyId },
      { singletonKey: `retry:${companyId}:${Math.ceil(at.getTime() / 1000)}`, startAfter: at },
    );
  }

  const timer = poll
    ? setInterval(
        () => void claim().catch((error: unknown) => logger.error({ err: error }, 'chat delivery')),
        config.chat.pollMs,
      )
    : null;
  timer?.unref();
  return {
    runOnce,
    deliverCompany,
    async stop() {
      stopping.abort();
      if (timer) clearInterval(timer);
      await claiming?.catch(() => undefined);
      await Promise.all(underWay);
    },
  };
}

export const CHAT_DELIVERY = 'chat.deliver';

/** Asks for the company's due messages to be delivered now (its outbox row was written in `db`'s transaction). */
export async function deliverSoon(queue: JobQueue, db: Knex, companyId: string): Promise<void> {
  await queue.send<JobData>(CHAT_DELIVERY, { companyId }, { db, singletonKey: `now:${companyId}` });
}

/**
 * The queue's kind: a job delivers one company's lanes. The queue's share per company keeps a
 * slow webhook's company to its own jobs; the other companies' jobs take the rest of the node.
 */
export function chatDeliveryKind(delivery: ChatDelivery, config: Config): JobKind<JobData> {
  return {
    name: CHAT_DELIVERY,
    concurrency: config.chat.maxInFlight,
    expireInSeconds: 5 * 60,
    retryLimit: 10,
    retryDelaySeconds: 5,
    policy: 'short',
    run: (job, signal) => delivery.deliverCompany(job.companyId, signal),
  };
}
