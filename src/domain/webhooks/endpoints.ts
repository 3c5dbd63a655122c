/**
 * A company's webhook endpoints as the admin API manages them (./delivery.ts sends to them). An
 * endpoint starts at the end of the feed: it receives what is written after it was made. Nodes
 * find endpoints with something waiting by their sweep, so a change here needs no message to them.
 */
import type { Knex } from 'knex';
import spec from '../../generated/openapi.json';
import { ApiError, notFound } from '../../platform/errors';
import { newId, newWebhookSecret } from '../../platform/ids';
import { decodeCursor, SAFE_MAX } from '../../platform/pagination';
import { SETTLED_TXID } from '../../platform/changes';
import { checkWebhookTarget } from '../../platform/webhook-target';
import { requireCompany } from '../admin/companies';
import { entriesAfterPlace, parseEvents, subscribedTo } from './delivery';

export const MAX_ENDPOINTS = 10;
/** The delivery log is kept this long: at 100 writes a second it grows by 8.6 million attempts a day. */
const ATTEMPTS_KEPT_DAYS = 7;
/** `waiting` is counted up to this many. */
const WAITING_COUNTED = 1000;

/** Every kind and action the feed has: what `events` may name. */
const KNOWN_EVENTS = new Set<string>([
  ...spec.components.schemas.ChangeKind.enum,
  ...Object.keys(spec.components.schemas.ChangeData.discriminator.mapping),
]);

export interface EndpointRow {
  id: string;
  company_id: string;
  url: string;
  description: string;
  events: unknown;
  secret: string;
  status: 'active' | 'paused' | 'disabled';
  disabled_reason: string | null;
  failing_since: Date | null;
  next_attempt_at: Date;
  head_attempts: number;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  waiting?: number;
}

const iso = (value: Date | string | null): string | null => (value ? new Date(value).toISOString() : null);

/** An endpoint as the admin API answers it: never its secrets. */
export function endpointAnswer(row: EndpointRow) {
  const expires =
    row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > new Date()
      ? row.previous_secret_expires_at
      : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: parseEvents(row.events),
    status: row.status,
    disabled_reason: row.status === 'disabled' ? row.disabled_reason : null,
    failing_since: iso(row.failing_since),
    next_attempt_at: row.head_attempts > 0 && row.status === 'active' ? iso(row.next_attempt_at) : null,
    waiting: Number(row.waiting ?? 0),
    previous_secret_expires_at: iso(expires),
    created_at: iso(row.created_at)!,
  };
}

/** https, and a public address, unless the service allows tests' local receivers. */
export async function checkEndpointUrl(url: string, allowPrivate: boolean): Promise<void> {
  if (!allowPrivate && !/^https:/i.test(url))
    throw new ApiError(
      422,
      'webhook_not_allowed',
      'The webhook target is not allowed: it must be an https URL.',
    );
  await checkWebhookTarget(url, allowPrivate);
}

export function checkEvents(events: string[] | undefined): string[] {
  const unknown = (events ?? []).filter((name) => !KNOWN_EVENTS.has(name));
  if (unknown.length > 0) {
    throw new ApiError(
      400,
      'invalid_request',
      'The request does not match the API: events names what the feed does not have.',
      {
        errors: unknown.map((name) => ({
          path: '/body/events',
          message: `${name} is no feed kind or action; known: ${[...KNOWN_EVENTS].join(', ')}`,
        })),
      },
    );
  }
  return events ?? [];
}

export async function createEndpoint(
  db: Knex,
  companyId: string,
  input: { url: string; events: string[]; description: string },
): Promise<EndpointRow> {
  await requireCompany(db, companyId);
  return db.transaction(async (trx) => {
    // One at a time per company, so that two creates cannot both pass the count.
    await trx('companies').where({ id: companyId }).forUpdate().first('id');
    const { count } = (await trx('webhook_endpoints')
      .where({ company_id: companyId })
      .count('* as count')
      .first()) as { count: string | number };
    if (Number(count) >= MAX_ENDPOINTS)
      throw new ApiError(
        422,
        'too_many_webhooks',
        `A company has at most ${MAX_ENDPOINTS} webhook endpoints; remove one first.`,
      );
    // The place: after every entry there is, settled or not, so nothing older is sent.
    const end = (await trx('change_entries')
      .where({ company_id: companyId })
      .orderBy([
        { column: 'txid', order: 'desc' },
        { column: 'seq', order: 'desc' },
      ])
      .first('txid', 'seq')) as { txid: string; seq: string } | undefined;
    const [row] = await trx('webhook_endpoints')
      .insert({
        id: newId('whk'),
        company_id: companyId,
        url: input.url,
        description: input.description,
        events: JSON.stringify(input.events),
        secret: newWebhookSecret(),
        cursor_txid: end
          ? trx.raw(`greatest(?::bigint, ${SETTLED_TXID})`, [end.txid])
          : trx.raw(SETTLED_TXID),
        cursor_seq: end?.seq ?? 0,
      })
      .returning('*');
    return row as EndpointRow;
  });
}

export async function listEndpoints(db: Knex, companyId: string): Promise<EndpointRow[]> {
  await requireCompany(db, companyId);
  return (await db('webhook_endpoints as w')
    .where('w.company_id', companyId)
    .orderBy([{ column: 'w.created_at' }, { column: 'w.id' }])
    .select(
      'w.*',
      db.raw(`(select count(*) from (${waitingSql(db)} limit ${WAITING_COUNTED}) x) as waiting`),
    )) as EndpointRow[];
}

/** The endpoint with its waiting count; 404 when it is not this company's. */
export async function findEndpoint(db: Knex, companyId: string, endpointId: string): Promise<EndpointRow> {
  const row = (await db('webhook_endpoints as w')
    .where({ 'w.id': endpointId, 'w.company_id': companyId })
    .first(
      'w.*',
      db.raw(`(select count(*) from (${waitingSql(db)} limit ${WAITING_COUNTED}) x) as waiting`),
    )) as EndpointRow | undefined;
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** The entries waiting for endpoint `w`, as a sub-select's SQL. */
function waitingSql(db: Knex): string {
  return entriesAfterPlace(db).select(db.raw('1')).toQuery();
}

export async function updateEndpoint(
  db: Knex,
  companyId: string,
  endpointId: string,
  changes: { url?: string; events?: string[]; description?: string; status?: 'active' | 'paused' },
): Promise<EndpointRow> {
  await findEndpoint(db, companyId, endpointId);
  const resumed =
    changes.status === 'active'
      ? { head_attempts: 0, failing_since: null, disabled_reason: null, next_attempt_at: db.fn.now() }
      : {};
  await db('webhook_endpoints')
    .where({ id: endpointId, company_id: companyId })
    .update({
      ...(changes.url !== undefined ? { url: changes.url } : {}),
      ...(changes.events !== undefined ? { events: JSON.stringify(changes.events) } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...resumed,
    });
  return findEndpoint(db, companyId, endpointId);
}

export async function deleteEndpoint(db: Knex, companyId: string, endpointId: string): Promise<void> {
  await findEndpoint(db, companyId, endpointId);
  await db('webhook_endpoints').where({ id: endpointId, company_id: companyId }).delete();
}

export async function rotateSecret(
  db: Knex,
  companyId: string,
  endpointId: string,
  graceSeconds: number,
): Promise<EndpointRow> {
  await findEndpoint(db, companyId, endpointId);
  await db('webhook_endpoints')
    .where({ id: endpointId, company_id: companyId })
    .update({
      previous_secret: db.ref('secret'),
      previous_secret_expires_at: db.raw(`now() + make_interval(secs => ?)`, [graceSeconds]),
      secret: newWebhookSecret(),
    });
  return findEndpoint(db, companyId, endpointId);
}

/**
 * Queues events again: one (`eventId`) as a resend ahead of the endpoint's place, or all from a
 * feed cursor or a moment by moving its place back. Answers how many events it sends.
 */
export async function replay(
  db: Knex,
  companyId: string,
  endpointId: string,
  from: { event_id?: string; since_cursor?: string; since?: string },
): Promise<number> {
  const endpoint = await findEndpoint(db, companyId, endpointId);
  const events = parseEvents(endpoint.events);
  if (from.event_id !== undefined) {
    const entry = await subscribedTo(
      db('change_entries').where({ company_id: companyId, seq: from.event_id }),
      events,
    ).first('seq');
    if (!entry) throw notFound('feed entry this endpoint receives');
    await db('webhook_resends').insert({ endpoint_id: endpointId, entry_seq: entry.seq });
    await db('webhook_endpoints').where({ id: endpointId }).update({ next_attempt_at: db.fn.now() });
    return 1;
  }
  const place =
    from.since_cursor !== undefined
      ? cursorPlace(from.since_cursor)
      : await placeBefore(db, companyId, new Date(from.since!));
  const counted = (await subscribedTo(
    db('change_entries')
      .where({ company_id: companyId })
      .whereRaw('(txid, seq) > (?, ?)', [place.txid, place.seq])
      .whereRaw(`txid < ${SETTLED_TXID}`),
    events,
  )
    .count('* as count')
    .first()) as { count: string | number };
  await db('webhook_endpoints')
    .where({ id: endpointId })
    .update({ cursor_txid: place.txid, cursor_seq: place.seq, next_attempt_at: db.fn.now() });
  return Number(counted.count);
}

function cursorPlace(cursor: string): { txid: number; seq: number } {
  try {
    return decodeCursor(cursor, { txid: SAFE_MAX, seq: SAFE_MAX });
  } catch {
    throw new ApiError(400, 'invalid_request', 'The cursor is not one list_changes gave out.', {
      errors: [{ path: '/body/since_cursor', message: 'must be a next_cursor of list_changes' }],
    });
  }
}

/** The place just before the first entry at or after `since`. */
async function placeBefore(db: Knex, companyId: string, since: Date): Promise<{ txid: number; seq: number }> {
  const first = (await db('change_entries')
    .where({ company_id: companyId })
    .where('at', '>=', since)
    .orderBy([{ column: 'txid' }, { column: 'seq' }])
    .first('txid', 'seq')) as { txid: string; seq: string } | undefined;
  if (!first) {
    const settled = (await db.raw(`select ${SETTLED_TXID} as txid`)) as { rows: { txid: string }[] };
    return { txid: Number(settled.rows[0].txid), seq: 0 };
  }
  return { txid: Number(first.txid), seq: Number(first.seq) - 1 };
}

export async function listAttempts(
  db: Knex,
  companyId: string,
  endpointId: string,
  query: { event_id?: string; cursor?: string; limit?: number },
) {
  await findEndpoint(db, companyId, endpointId);
  const limit = query.limit ?? 25;
  const before = query.cursor ? decodeCursor(query.cursor, { id: SAFE_MAX }).id : SAFE_MAX;
  const attempts = db('webhook_attempts').where({ endpoint_id: endpointId }).where('id', '<', before);
  if (query.event_id) attempts.where({ entry_seq: query.event_id });
  return (await attempts.orderBy('id', 'desc').limit(limit + 1)) as {
    id: string;
    entry_seq: string;
    attempt: number;
    at: Date;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
    delivered: boolean;
    replay: boolean;
  }[];
}

/** Deletes delivery-log rows past their keeping (the hourly maintenance sweep); answers how many. */
export async function purgeOldAttempts(db: Knex): Promise<number> {
  // Counted in SQL: PGlite's driver answers a DELETE without its row count.
  const { rows } = (await db.raw(
    `with gone as (delete from webhook_attempts where at < now() - interval '${ATTEMPTS_KEPT_DAYS} days' returning 1) select count(*)::int as count from gone`,
  )) as { rows: { count: number }[] };
  return rows[0].count;
}
