/**
 * `subscriptions/listen` (2026-07-28): the SDK's entry acknowledges the stream, filters by URI
 * and writes the notifications; this module decides who may open one and what it is told.
 * - Before the entry sees a listen, every URI it names must be a resource the caller may read
 *   (./resources.ts): the bus tells every stream of the URIs it names, whatever its company.
 * - While a stream of a company is open, this node reads that company's change feed
 *   (platform/feed-watch), whichever node wrote it, and publishes `resource_updated` for the job
 *   and its drying log of each new entry, with the entry's list_changes cursor in `_meta`: a
 *   client that reconnects reads what it missed with list_changes from the last one it got.
 * - Every CHECK_MS the stream's key or token is checked; once revoked (or its grant, or expired)
 *   the stream's request is aborted and the stream ends.
 */
import type { Knex } from 'knex';
import type { ServerEventBus } from '@modelcontextprotocol/server';
import { secretStands } from '../../platform/auth';
import type { Caller } from '../../platform/caller';
import type { FeedNews, FeedWatch } from '../../platform/feed-watch';
import { jobUris } from './job-resources';

/** A revoked credential ends its streams within this, plus the time a revocation takes to reach every node (at most the key cache's TTL). */
const CHECK_MS = 5_000;
/** Where a notification carries the feed: list_changes' cursor after the entry, and the entry's id. */
export const CURSOR_META = 'jms/changes_cursor';
export const ENTRY_META = 'jms/change_id';

interface ListenRequest {
  id: string | number;
  uris: string[];
}

/** The listen request a body is, with the URIs it subscribes to; null for any other message. */
export function listenRequestOf(body: unknown): ListenRequest | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const message = body as {
    method?: unknown;
    id?: unknown;
    params?: { notifications?: { resourceSubscriptions?: unknown } };
  };
  if (message.method !== 'subscriptions/listen') return null;
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return null;
  const uris = message.params?.notifications?.resourceSubscriptions;
  return {
    id: message.id,
    uris: Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : [],
  };
}

/** Tells the bus of each job the news is about, once per batch, in feed order, with the newest cursor. */
function publishNews(bus: ServerEventBus, news: FeedNews[]): void {
  const latest = new Map<string, FeedNews>();
  for (const item of news) if (item.jobId) latest.set(item.jobId, item);
  const ordered = [...latest.entries()].sort(([, a], [, b]) => Number(a.entryId) - Number(b.entryId));
  for (const [jobId, item] of ordered) {
    const params = { _meta: { [CURSOR_META]: item.cursor, [ENTRY_META]: item.entryId } };
    for (const uri of jobUris(jobId)) bus.publish({ kind: 'resource_updated', uri, params });
  }
}

export class ListenStreams {
  /** How each open stream is ended. */
  private readonly ends = new Set<() => void>();

  constructor(
    private readonly db: Knex,
    private readonly feed: FeedWatch,
    bus: ServerEventBus,
  ) {
    feed.onNews((news) => publishNews(bus, news));
  }

  /**
   * A stream about to open for the caller with this secret: the company's feed is read from now
   * on, and `end` is called once the secret no longer stands. The function returned lets go.
   */
  async open(caller: Caller, secret: string, end: () => void): Promise<() => void> {
    const unwatch = await this.feed.watch(caller.companyId);
    const check = setInterval(() => {
      secretStands(this.db, secret).then(
        (stands) => {
          if (!stands) end();
        },
        () => undefined, // the database is away: the next check decides
      );
    }, CHECK_MS);
    check.unref();
    this.ends.add(end);
    return () => {
      this.ends.delete(end);
      clearInterval(check);
      unwatch();
    };
  }

  /**
   * Ends every stream, as a dropped connection (no graceful result): when the node stops, its
   * clients listen again through another node, and read what they missed from their cursor.
   */
  endAll(): void {
    for (const end of this.ends) end();
  }
}
