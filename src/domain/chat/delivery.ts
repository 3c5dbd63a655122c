/**
 * Delivers the chat outbox, fairly: each webhook URL is a lane, and a slow or dead webhook holds
 * up only its own lane, not the other companies' notes.
 *
 * - A message may be taken when it is due and among the oldest `CHAT_MAX_IN_FLIGHT_PER_TARGET`
 *   (default 1) unsettled messages of its lane. The rule is read from the table, so it holds
 *   across nodes; with 1, a lane's messages are posted one at a time in the order they were
 *   queued, and a message waiting for its retry keeps the later ones behind it (the chat reads in
 *   order; a dead webhook's backlog waits rather than failing message by message).
 * - Taking a message leases it: its next attempt moves a minute ahead, in the same statement that
 *   locks it (SKIP LOCKED), so no other node takes it meanwhile, and after a crash it is taken
 *   again once the lease runs out. A post's deadline (10 s) is well inside the lease.
 * - A node posts at most `CHAT_MAX_IN_FLIGHT` messages at once and does not wait for a batch: it
 *   takes more whenever a slot frees up or the poll comes round.
 * Lanes are URLs rather than hosts, since many companies' webhooks share one host (Slack's).
 *
 * On a node, deliveries are started by the job queue rather than by polling: a note's outbox row
 * is queued with a job in the same transaction (./outbox.ts), and a failed post queues a job for
 * the time of its next try. Any node takes them; the leases above keep two from posting one row.
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
  /** Stops taking messages and waits for the posts under way (each ends by its deadline). */
  stop(): Promise<void>;
}

interface Claimed {
  id: string;
  webhook_url: string;
  payload: unknown;
  attempts: number;
}

export function startChatDelivery(
  deps: { db: Knex; config: Config; logger: Logger },
  options: { poll?: boolean } = {},
): ChatDelivery {
  const { db, config, logger } = deps;
  const poll = options.poll !== false;
  const underWay = new Set<Promise<void>>();
  let claiming: Promise<Promise<void>[]> | null = null;
  let claimAgain = false;
  let stopped = false;

  async function claimDue(limit: number): Promise<Claimed[]> {
    const unsettled = (query: Knex.QueryBuilder) => query.whereNull('delivered_at').whereNull('failed_at');
    const lanes = unsettled(db('chat_outbox')).select(
      'id',
      'next_attempt_at',
      db.raw('row_number() over (partition by webhook_url order by created_at, id) as place'),
    );
    const eligible = db
      .from(lanes.as('lane'))
      .where('place', '<=', config.chat.maxInFlightPerTarget)
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

  async function deliver(message: Claimed): Promise<void> {
    const payload = typeof message.payload === 'string' ? JSON.parse(message.payload) : message.payload;
    let failure: string | null = null;
    let refused = false;
    try {
      const status = await postJson(message.webhook_url, payload, {
        allowPrivate: config.chat.allowPrivateTargets,
        timeoutMs: TIMEOUT_MS,
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

  function start(message: Claimed): Promise<void> {
    const delivery: Promise<void> = deliver(message)
      .catch((error: unknown) => logger.error({ err: error, message: message.id }, 'chat delivery'))
      .finally(() => {
        underWay.delete(delivery);
        // A freed slot may let the lane's next message (or a waiting lane) go now, not at the next poll.
        if (poll && !stopped)
          void claim().catch((error: unknown) => logger.error({ err: error }, 'chat delivery'));
      });
    underWay.add(delivery);
    return delivery;
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
        if (stopped || free <= 0) break;
        started.push(...(await claimDue(free)).map(start));
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

  const timer = poll
    ? setInterval(
        () => void claim().catch((error: unknown) => logger.error({ err: error }, 'chat delivery')),
        config.chat.pollMs,
      )
    : null;
  timer?.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await claiming?.catch(() => undefined);
      await Promise.all(underWay);
    },
  };
}

export const CHAT_DELIVERY = 'chat.deliver';
/** The deliveries are the service's, not a company's: fairness between companies is per lane, above. */
const NO_COMPANY = '';

/** Asks for the due messages to be delivered now (a note's outbox row was written in `db`'s transaction). */
export async function deliverSoon(queue: JobQueue, db: Knex): Promise<void> {
  await queue.send(CHAT_DELIVERY, { companyId: NO_COMPANY }, { db, singletonKey: 'now' });
}

/** The queue's kind: delivers what is due, then queues a job for the time the next retry is due. */
export function chatDeliveryKind(delivery: ChatDelivery, queue: JobQueue, db: Knex): JobKind<JobData> {
  return {
    name: CHAT_DELIVERY,
    concurrency: 1,
    expireInSeconds: 5 * 60,
    retryLimit: 10,
    retryDelaySeconds: 5,
    policy: 'short',
    run: async () => {
      while ((await delivery.runOnce()) > 0);
      const next = (await db('chat_outbox')
        .whereNull('delivered_at')
        .whereNull('failed_at')
        .min('next_attempt_at as at')
        .first()) as { at: Date | null } | undefined;
      // One waiting job per second of retry time: an earlier retry is never held behind a later one.
      if (next?.at)
        await queue.send(
          CHAT_DELIVERY,
          { companyId: NO_COMPANY },
          {
            singletonKey: `retry:${Math.ceil(new Date(next.at).getTime() / 1000)}`,
            startAfter: new Date(next.at),
          },
        );
    },
  };
}
