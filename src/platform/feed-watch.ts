/**
 * Tells this node, within about a second, of what any node wrote to the change feed of the
 * companies it watches: what MCP subscription streams are told (transports/mcp/subscriptions.ts).
 * Every node reads the shared feed itself, so a stream hears of a change whichever node made it,
 * with nothing passed between nodes.
 *
 * One place in the feed serves every watched company: entries settle in (txid, seq) order across
 * the whole database (./changes.ts), so the entries after the place that the horizon has let
 * through are exactly the new ones. The place starts at the horizon when watching starts (what
 * settled before is not news), and after a read that was not cut short by the batch it moves to
 * the horizon read before it: every entry below that was in the read. It polls only while some
 * company is watched.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { SETTLED_TXID } from './changes';
import { encodeCursor } from './pagination';

const POLL_MS = 1_000;
const BATCH = 500;

/** A new entry of a watched company's feed. */
export interface FeedNews {
  companyId: string;
  jobId: string | null;
  /** The entry's id, as list_changes answers it. */
  entryId: string;
  /** list_changes' cursor just after this entry: reading from it gives what came next. */
  cursor: string;
}

type Place = {
  txid: number;
  seq: number;
};

export class FeedWatch {
  private readonly watched = new Map<string, number>();
  private readonly listeners = new Set<(news: FeedNews[]) => void>();
  private place: Place | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The polling loop under way: a loop left over from before a stop does not go on. */
  private loop: object | null = null;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly pollMs = POLL_MS,
  ) {}

  /** Hears of every batch of news, in feed order; returns the way to stop hearing. */
  onNews(listener: (news: FeedNews[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Watches a company's feed until the function returned is called (once per watcher). Resolves
   * once the place is set, so that whatever settles after that is heard.
   */
  async watch(companyId: string): Promise<() => void> {
    this.watched.set(companyId, (this.watched.get(companyId) ?? 0) + 1);
    try {
      await this.start();
    } catch (error) {
      this.unwatch(companyId);
      throw error;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.unwatch(companyId);
    };
  }

  private unwatch(companyId: string): void {
    const left = (this.watched.get(companyId) ?? 1) - 1;
    if (left > 0) this.watched.set(companyId, left);
    else this.watched.delete(companyId);
    if (this.watched.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.loop = null;
    this.place = null;
  }

  private start(): Promise<void> {
    if (this.place) return Promise.resolve();
    this.starting ??= (async () => {
      try {
        this.place = { txid: await this.horizon(), seq: 0 };
        const loop = {};
        this.loop = loop;
        this.schedule(loop);
      } finally {
        this.starting = null;
      }
    })();
    return this.starting;
  }

  private schedule(loop: object): void {
    this.timer = setTimeout(() => {
      this.poll()
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'could not read the change feed for MCP subscriptions'),
        )
        .finally(() => {
          if (this.loop === loop) this.schedule(loop);
        });
    }, this.pollMs);
    this.timer.unref();
  }

  private async horizon(): Promise<number> {
    const { rows } = (await this.db.raw(`select ${SETTLED_TXID} as horizon`)) as {
      rows: { horizon: string | number }[];
    };
    return Number(rows[0].horizon);
  }

  private async poll(): Promise<void> {
    const from = this.place;
    const companies = [...this.watched.keys()];
    if (!from || companies.length === 0) return;
    const horizon = await this.horizon();
    const rows = (await this.db('change_entries')
      .whereIn('company_id', companies)
      .whereRaw('(txid, seq) > (?, ?)', [from.txid, from.seq])
      .where('txid', '<', horizon)
      .orderBy([{ column: 'txid' }, { column: 'seq' }])
      .limit(BATCH)
      .select('company_id', 'job_id', 'txid', 'seq')) as {
      company_id: string;
      job_id: string | null;
      txid: string | number;
      seq: string | number;
    }[];
    // Stopped meanwhile, or started again from another place: this read is not news.
    if (this.place !== from) return;
    const last = rows.at(-1);
    this.place =
      rows.length < BATCH ? laterOf({ txid: horizon, seq: 0 }, last ? placeOf(last) : from) : placeOf(last!);
    if (rows.length === 0) return;
    const news = rows.map((row) => ({
      companyId: row.company_id,
      jobId: row.job_id,
      entryId: String(row.seq),
      cursor: encodeCursor(placeOf(row)),
    }));
    for (const listener of this.listeners) listener(news);
  }
}

function placeOf(row: { txid: string | number; seq: string | number }): Place {
  return { txid: Number(row.txid), seq: Number(row.seq) };
}

function laterOf(a: Place, b: Place): Place {
  return a.txid > b.txid || (a.txid === b.txid && a.seq >= b.seq) ? a : b;
}
