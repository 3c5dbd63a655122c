/**
 * Delivers the chat outbox: takes due messages (moving their next attempt past a lease, so that
 * another node or a crash does not send them twice at once), posts them outside any transaction,
 * then marks them delivered or schedules a retry with exponential backoff.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { postJson } from './webhook-target';

const BATCH = 10;
const LEASE_SECONDS = 60;
const MAX_ATTEMPTS = 12;
const MAX_DELAY_MS = 10 * 60_000;
const TIMEOUT_MS = 10_000;

export interface ChatDelivery {
  /** Delivers what is due now; resolves with the number of messages tried. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startChatDelivery(deps: { db: Knex; config: Config; logger: Logger }, options: { poll?: boolean } = {}): ChatDelivery {
  const { db, config, logger } = deps;
  let running: Promise<number> | null = null;

  async function deliver(message: { id: string; webhook_url: string; payload: unknown; attempts: number }): Promise<void> {
    const payload = typeof message.payload === 'string' ? JSON.parse(message.payload) : message.payload;
    try {
      const status = await postJson(message.webhook_url, payload, { allowPrivate: config.chat.allowPrivateTargets, timeoutMs: TIMEOUT_MS });
      if (status < 200 || status >= 300) throw new Error(`the webhook answered ${status}`);
      await db('chat_outbox').where({ id: message.id }).update({ delivered_at: db.fn.now(), last_error: null });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const delay = Math.min(config.chat.retryBaseMs * 2 ** (message.attempts - 1), MAX_DELAY_MS);
      const giveUp = message.attempts >= MAX_ATTEMPTS;
      logger.warn({ message: message.id, attempts: message.attempts, reason, giveUp }, 'chat delivery failed');
      await db('chat_outbox')
        .where({ id: message.id })
        .update({ last_error: reason, ...(giveUp ? { failed_at: db.fn.now() } : { next_attempt_at: new Date(Date.now() + delay) }) });
    }
  }

  async function claimDue(): Promise<{ id: string; webhook_url: string; payload: unknown; attempts: number }[]> {
    const due = db('chat_outbox')
      .whereNull('delivered_at')
      .whereNull('failed_at')
      .where('next_attempt_at', '<=', db.fn.now())
      .orderBy('next_attempt_at')
      .limit(BATCH)
      .forUpdate()
      .skipLocked()
      .select('id');
    return db('chat_outbox')
      .whereIn('id', due)
      .update({ attempts: db.raw('attempts + 1'), next_attempt_at: db.raw(`now() + interval '${LEASE_SECONDS} seconds'`) })
      .returning(['id', 'webhook_url', 'payload', 'attempts']);
  }

  async function runOnce(): Promise<number> {
    if (!running) {
      running = (async () => {
        const messages = await claimDue();
        await Promise.all(messages.map(deliver));
        return messages.length;
      })().finally(() => (running = null));
    }
    return running;
  }

  const timer = options.poll === false ? null : setInterval(() => void runOnce().catch((error) => logger.error({ err: error }, 'chat delivery')), config.chat.pollMs);
  timer?.unref();
  return {
    runOnce,
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
