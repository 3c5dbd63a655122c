/**
 * Pushes the change feed to webhook endpoints, signed as Standard Webhooks describes.
 *
 * Each endpoint is a lane with its own place in the feed (the (txid, seq) of the last entry it
 * received): the settled entries after it that it subscribes to are what it still has to
 * receive, sent one at a time in feed order. The place moves only after a 2xx, so a crash
 * between the post and the move sends that entry again: at least once, deduped by `webhook-id`
 * (the entry's id). A failed attempt holds the lane until its retry is due; after the last retry
 * the endpoint is disabled, with an entry in the feed.
 *
 * Lanes run as jobs of the durable queue, any node taking any lane. A job first leases its lane
 * (a row update, so one node at a time posts to an endpoint); the lease outlives an attempt's
 * deadline, and a lane whose node died is taken again once its lease has run out. Jobs are sent
 * after a write with feed entries commits (announce), for the time of a retry, and by each node's
 * sweep, which finds lanes with entries waiting that nothing announced (a node that died between
 * its commit and its announcement, an entry settled only after an older transaction ended).
 *
 * When the node stops, a post under way is cut short (its job's AbortSignal): the attempt is not
 * logged nor counted, the place does not move, the lease is let go, and the job is released to
 * the queue, so another node sends that entry again at once, under the same `webhook-id`.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import { feedEntryAnswer, feedRows, SETTLED_TXID, type FeedRow } from '../../platform/changes';
import type { Config } from '../../platform/config';
import { ForbiddenTarget, postJson } from '../../platform/webhook-target';
import type { JobData, JobKind, JobQueue } from '../../infrastructure/queue/job-queue';

export const WEBHOOK_DELIVERY = 'webhooks.deliver';
/** Entries read from the feed at a time for one lane. */
const BATCH = 50;
/** A lease outlives an attempt's deadline by this much (a holder renews it after each delivery), so a live holder never loses it mid-post. */
const LEASE_MARGIN_SECONDS = 5;
/** How long a company's list of active endpoints is trusted on a node (admin changes on it clear it at once). */
const ENDPOINTS_CACHE_MS = 2000;

/** A lane's delivery cut short because the node stops: its job is released, not failed. */
export class LaneStopped extends Error {
  constructor() {
    super('the node is stopping');
  }
}

interface LaneJob extends JobData {
  endpointId: string;
}

interface Lane {
  id: string;
  company_id: string;
  url: string;
  events: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  cursor_txid: string;
  cursor_seq: string;
  head_attempts: number;
  failing_since: Date | null;
  timezone: string;
}

interface Item {
  entry: FeedRow;
  /** Set for a one-off resend (admin_replay_webhook with event_id), which goes ahead of the lane's place. */
  resendId: string | null;
}

interface Outcome {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

export interface WebhookDeliveryDeps {
  db: Knex;
  config: Config;
  logger: Logger;
  queue: JobQueue;
}

export class WebhookDelivery {
  private readonly activeByCompany = new Map<string, { ids: string[]; until: number }>();
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: WebhookDeliveryDeps) {}

  /** The queue's kind: a job delivers one lane as far as it can. */
  kind(): JobKind<LaneJob> {
    const { timeoutMs } = this.deps.config.webhooks;
    return {
      name: WEBHOOK_DELIVERY,
      concurrency: 32,
      expireInSeconds: Math.ceil(timeoutMs / 1000) * BATCH + LEASE_MARGIN_SECONDS,
      retryLimit: 3,
      retryDelaySeconds: 5,
      policy: 'short',
      // The endpoint, not the company, shares a node: a company's slow endpoint must not hold
      // back its other endpoints (an endpoint has at most one delivery under way anyway, by its lease).
      shareOf: (job) => job.endpointId,
      run: (job, signal) => this.runLane(job.endpointId, signal),
    };
  }

  /** After a write with feed entries commits: the company's active endpoints have something to receive. */
  announce(companyId: string): void {
    const send = async () => {
      for (const endpointId of await this.activeEndpoints(companyId))
        await this.sendSoon(companyId, endpointId);
    };
    // A lost announcement only waits for the sweep.
    send().catch((error: unknown) =>
      this.deps.logger.warn(
        { err: error, company: companyId },
        'could not announce feed entries to webhooks',
      ),
    );
  }

  /** An endpoint this node disabled is forgotten here at once; other changes are seen within ENDPOINTS_CACHE_MS, and the sweep covers the gap. */
  forget(companyId: string): void {
    this.activeByCompany.delete(companyId);
  }

  /** Queues a job for the lane now (one waits at a time per lane: sending again meanwhile is a no-op). */
  async sendSoon(companyId: string, endpointId: string): Promise<void> {
    await this.deps.queue.send<LaneJob>(
      WEBHOOK_DELIVERY,
      { companyId, endpointId },
      { singletonKey: `now:${endpointId}` },
    );
  }

  startSweeping(): void {
    const sweep = () =>
      this.sweep()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'webhook sweep failed'))
        .finally(() => {
          if (this.sweepTimer) this.sweepTimer = setTimeout(sweep, this.deps.config.webhooks.sweepMs).unref();
        });
    this.sweepTimer = setTimeout(sweep, this.deps.config.webhooks.sweepMs).unref();
  }

  stopSweeping(): void {
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
  }

  /** Lanes that are due, not leased, and have something waiting: each gets a job. */
  async sweep(): Promise<void> {
    const { db } = this.deps;
    const rows = (await db('webhook_endpoints as w')
      .where('w.status', 'active')
      .where('w.next_attempt_at', '<=', db.fn.now())
      .where((q) => q.whereNull('w.leased_until').orWhere('w.leased_until', '<', db.fn.now()))
      .where((q) =>
        q
          .whereExists(db('webhook_resends as r').whereRaw('r.endpoint_id = w.id'))
          .orWhereExists(waitingEntries(db)),
      )
      .select('w.id', 'w.company_id')) as { id: string; company_id: string }[];
    for (const row of rows) await this.sendSoon(row.company_id, row.id);
  }

  /**
   * Delivers what waits for the endpoint, in order, until it is all delivered or an attempt fails.
   * Throws `LaneStopped` once `signal` is aborted, with the post under way cut short and not counted.
   */
  async runLane(endpointId: string, signal: AbortSignal): Promise<void> {
    const holder = randomUUID();
    const leased = await this.lease(endpointId, holder);
    if (!leased) return; // not due, paused, gone, or another node is delivering it now
    let lane: Lane = leased;
    try {
      for (
        let items = await this.waitingItems(lane);
        items.length > 0;
        items = await this.waitingItems(lane)
      ) {
        for (const item of items) {
          if (signal.aborted) throw new LaneStopped();
          const outcome = await this.attempt(lane, item, signal);
          // Cut short: the receiver's answer is unknown, so the entry is sent again by another node.
          if (!outcome.delivered && signal.aborted) throw new LaneStopped();
          await this.log(lane, item, outcome);
          if (!outcome.delivered) return await this.fail(lane, outcome, holder);
          const next = await this.advance(lane, item, holder);
          if (!next) return; // the lease was lost, or the endpoint paused or removed meanwhile
          lane = next.lane;
          if (next.reread) break; // a replay moved the place back: read again from there
        }
      }
      await this.skipUnwanted(lane, holder);
    } finally {
      await this.deps
        .db('webhook_endpoints')
        .where({ id: lane.id, lease_holder: holder })
        .update({ lease_holder: null, leased_until: null });
    }
    // An entry may have settled after the last read and before the lease was let go: its own
    // announcement found the lane leased. One more job looks.
    if (await this.hasWaiting(lane)) await this.sendSoon(lane.company_id, lane.id);
  }

  private async activeEndpoints(companyId: string): Promise<string[]> {
    const cached = this.activeByCompany.get(companyId);
    if (cached && cached.until > Date.now()) return cached.ids;
    const rows = (await this.deps
      .db('webhook_endpoints')
      .where({ company_id: companyId, status: 'active' })
      .select('id')) as { id: string }[];
    const ids = rows.map((row) => row.id);
    this.activeByCompany.set(companyId, { ids, until: Date.now() + ENDPOINTS_CACHE_MS });
    return ids;
  }

  private leaseInterval(): Knex.Raw {
    const seconds = Math.ceil(this.deps.config.webhooks.timeoutMs / 1000) + LEASE_MARGIN_SECONDS;
    return this.deps.db.raw(`now() + interval '${seconds} seconds'`);
  }

  private async lease(endpointId: string, holder: string): Promise<Lane | null> {
    const { db } = this.deps;
    const rows = await db('webhook_endpoints as w')
      .update({ lease_holder: holder, leased_until: this.leaseInterval() })
      .where('w.id', endpointId)
      .where('w.status', 'active')
      .where('w.next_attempt_at', '<=', db.fn.now())
      .where((q) => q.whereNull('w.leased_until').orWhere('w.leased_until', '<', db.fn.now()))
      .returning('*');
    return rows[0] ? this.withTimezone(rows[0]) : null;
  }

  private async withTimezone(row: Omit<Lane, 'timezone'>): Promise<Lane> {
    const company = (await this.deps.db('companies').where({ id: row.company_id }).first('timezone')) as {
      timezone: string;
    };
    return {
      ...row,
      events: parseEvents(row.events),
      cursor_txid: String(row.cursor_txid),
      cursor_seq: String(row.cursor_seq),
      timezone: company.timezone,
    };
  }

  private async waitingItems(lane: Lane): Promise<Item[]> {
    const { db } = this.deps;
    const resends = (await feedRows(db, lane.company_id)
      .join('webhook_resends as r', 'r.entry_seq', 'e.seq')
      .where('r.endpoint_id', lane.id)
      .orderBy('r.id')
      .limit(BATCH)
      .select('r.id as resend_id')) as (FeedRow & { resend_id: string })[];
    if (resends.length > 0) return resends.map((entry) => ({ entry, resendId: String(entry.resend_id) }));
    const entries = feedRows(db, lane.company_id)
      .whereRaw('(e.txid, e.seq) > (?, ?)', [lane.cursor_txid, lane.cursor_seq])
      .whereRaw(`e.txid < ${SETTLED_TXID}`);
    const rows = (await subscribedTo(entries, lane.events, 'e.')
      .orderBy([{ column: 'e.txid' }, { column: 'e.seq' }])
      .limit(BATCH)) as FeedRow[];
    return rows.map((entry) => ({ entry, resendId: null }));
  }

  /**
   * An endpoint that asked for some kinds or actions moves past the entries it does not want, up
   * to the newest settled entry, when none it wants lies between (one statement, one snapshot, so
   * an entry settling meanwhile cannot be passed over). Otherwise its place would stay at the
   * last entry it wanted, and each look for what waits would read every entry written since.
   */
  private async skipUnwanted(lane: Lane, holder: string): Promise<void> {
    if (lane.events.length === 0) return;
    const { db } = this.deps;
    await db.raw(
      `with newest as (
         select txid, seq from change_entries where company_id = ? and txid < ${SETTLED_TXID} order by txid desc, seq desc limit 1)
       update webhook_endpoints w set cursor_txid = newest.txid, cursor_seq = newest.seq
       from newest
       where w.id = ? and w.lease_holder = ? and (newest.txid, newest.seq) > (w.cursor_txid, w.cursor_seq)
         and not exists (
           select 1 from change_entries c
           where c.company_id = w.company_id and (c.txid, c.seq) > (w.cursor_txid, w.cursor_seq) and (c.txid, c.seq) <= (newest.txid, newest.seq)
             and (w.events @> to_jsonb(c.kind) or w.events @> to_jsonb(c.action)))`,
      [lane.company_id, lane.id, holder],
    );
  }

  private async hasWaiting(lane: Lane): Promise<boolean> {
    const { db } = this.deps;
    const row = await db('webhook_endpoints as w')
      .where('w.id', lane.id)
      .where('w.status', 'active')
      .where((q) =>
        q
          .whereExists(db('webhook_resends as r').whereRaw('r.endpoint_id = w.id'))
          .orWhereExists(waitingEntries(db)),
      )
      .first('w.id');
    return Boolean(row);
  }

  private async attempt(lane: Lane, item: Item, signal: AbortSignal): Promise<Outcome> {
    const { allowPrivateTargets, timeoutMs } = this.deps.config.webhooks;
    const id = String(item.entry.seq);
    const at = new Date();
    const body = JSON.stringify(feedEntryAnswer(item.entry, lane.timezone));
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatures(lane, id, at, body),
      'user-agent': 'JobManagementService-Webhooks/1',
    };
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      const statusCode = await postJson(lane.url, body, {
        allowPrivate: allowPrivateTargets,
        timeoutMs,
        headers,
        signal,
      });
      const delivered = statusCode >= 200 && statusCode < 300;
      return {
        delivered,
        statusCode,
        error: delivered ? null : `the endpoint answered ${statusCode}`,
        latencyMs: latency(),
      };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const message =
        error instanceof ForbiddenTarget
          ? `target refused: ${reason} (WEBHOOK_ALLOW_PRIVATE_TARGETS is off)`
          : reason;
      return { delivered: false, statusCode: null, error: message, latencyMs: latency() };
    }
  }

  private async log(lane: Lane, item: Item, outcome: Outcome): Promise<void> {
    await this.deps.db('webhook_attempts').insert({
      endpoint_id: lane.id,
      entry_seq: item.entry.seq,
      attempt: lane.head_attempts + 1,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      delivered: outcome.delivered,
      replay: item.resendId !== null,
    });
  }

  /**
   * After a 2xx: the lane moves past the item, its failing streak ends, and its lease is renewed.
   * `reread` when a replay moved the lane's place meanwhile (the replay wins).
   */
  private async advance(
    lane: Lane,
    item: Item,
    holder: string,
  ): Promise<{ lane: Lane; reread: boolean } | null> {
    return this.deps.db.transaction(async (trx) => {
      const fresh = { head_attempts: 0, failing_since: null, leased_until: this.leaseInterval() };
      const owned = () =>
        trx('webhook_endpoints').where({ id: lane.id, lease_holder: holder, status: 'active' });
      const withRow = (row: Partial<Lane> | undefined): Lane | null =>
        row
          ? {
              ...lane,
              head_attempts: 0,
              failing_since: null,
              cursor_txid: String(row.cursor_txid),
              cursor_seq: String(row.cursor_seq),
            }
          : null;
      if (item.resendId !== null) {
        await trx('webhook_resends').where({ id: item.resendId }).delete();
        const moved = withRow((await owned().update(fresh).returning(['cursor_txid', 'cursor_seq']))[0]);
        return moved && { lane: moved, reread: false };
      }
      const [row] = await owned()
        .where({ cursor_txid: lane.cursor_txid, cursor_seq: lane.cursor_seq })
        .update({ ...fresh, cursor_txid: item.entry.txid, cursor_seq: item.entry.seq })
        .returning(['cursor_txid', 'cursor_seq']);
      if (row) return { lane: withRow(row)!, reread: false };
      const replayed = withRow((await owned().update(fresh).returning(['cursor_txid', 'cursor_seq']))[0]);
      return replayed && { lane: replayed, reread: true };
    });
  }

  /** A failed attempt: the lane waits for its next retry, or, past the last one, is disabled. */
  private async fail(lane: Lane, outcome: Outcome, holder: string): Promise<void> {
    const { db, config, logger } = this.deps;
    const attempts = lane.head_attempts + 1;
    const wait = config.webhooks.retrySeconds[attempts - 1];
    logger.warn(
      { webhook: lane.id, attempts, reason: outcome.error, disabled: wait === undefined },
      'webhook delivery failed',
    );
    if (wait === undefined) return this.disable(lane, outcome, holder);
    const nextAt = new Date(Date.now() + wait * 1000);
    const updated = await db('webhook_endpoints')
      .where({ id: lane.id, lease_holder: holder })
      .update({
        head_attempts: attempts,
        failing_since: lane.failing_since ?? db.fn.now(),
        next_attempt_at: nextAt,
        lease_holder: null,
        leased_until: null,
      });
    if (updated === 0) return;
    await this.deps.queue.send<LaneJob>(
      WEBHOOK_DELIVERY,
      { companyId: lane.company_id, endpointId: lane.id },
      { singletonKey: `retry:${lane.id}:${nextAt.getTime()}`, startAfter: nextAt },
    );
  }

  private async disable(lane: Lane, outcome: Outcome, holder: string): Promise<void> {
    const { db } = this.deps;
    await db.transaction(async (trx) => {
      const [row] = await trx('webhook_endpoints')
        .where({ id: lane.id, lease_holder: holder })
        .update({
          status: 'disabled',
          disabled_reason: outcome.error,
          head_attempts: 0,
          lease_holder: null,
          leased_until: null,
          next_attempt_at: db.fn.now(),
        })
        .returning(['failing_since']);
      if (!row) return;
      const failingSince = new Date(row.failing_since ?? Date.now());
      const hours = Math.round((Date.now() - failingSince.getTime()) / 360_000) / 10;
      await trx('change_entries').insert({
        company_id: lane.company_id,
        txid: trx.raw('pg_current_xact_id()::text::bigint'),
        kind: 'changes',
        action: 'webhook.disabled',
        summary: `Disabled the webhook endpoint ${lane.url}: every delivery failed for ${hours} h`,
        data: JSON.stringify({
          action: 'webhook.disabled',
          webhook: { id: lane.id, url: lane.url },
          failing_since: failingSince.toISOString(),
          reason: outcome.error ?? 'failed',
        }),
        person_id: null,
        via_key: false,
      });
    });
    this.forget(lane.company_id);
  }
}

/** Entries (`c`) after an endpoint's place (aliased `w`) that it subscribes to, settled or not. */
export function entriesAfterPlace(db: Knex): Knex.QueryBuilder {
  return db('change_entries as c')
    .whereRaw('c.company_id = w.company_id')
    .whereRaw('(c.txid, c.seq) > (w.cursor_txid, w.cursor_seq)')
    .whereRaw(
      '(jsonb_array_length(w.events) = 0 or w.events @> to_jsonb(c.kind) or w.events @> to_jsonb(c.action))',
    );
}

/** What waits for an endpoint (aliased `w`): the entries after its place, settled. */
function waitingEntries(db: Knex): Knex.QueryBuilder {
  return entriesAfterPlace(db).whereRaw(`c.txid < ${SETTLED_TXID}`);
}

/** Narrows a query of change entries to an endpoint's kinds and actions (none: every entry). */
export function subscribedTo(query: Knex.QueryBuilder, events: string[], table = ''): Knex.QueryBuilder {
  return events.length === 0
    ? query
    : query.where((q) => q.whereIn(`${table}kind`, events).orWhereIn(`${table}action`, events));
}

/** One signature by the secret, and during a rotation's grace one by the secret before it. */
function signatures(lane: Lane, id: string, at: Date, body: string): string {
  const secrets = [lane.secret];
  if (
    lane.previous_secret &&
    lane.previous_secret_expires_at &&
    new Date(lane.previous_secret_expires_at) > at
  )
    secrets.push(lane.previous_secret);
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}

/** Drivers hand jsonb back parsed (pg) or as text. */
export function parseEvents(value: unknown): string[] {
  return (typeof value === 'string' ? JSON.parse(value) : value) as string[];
}
