/**
 * The change feed: one per company, oldest first. Each entry carries the id of the transaction
 * that wrote it. A reader returns only entries of transactions older than every transaction still
 * running (`pg_snapshot_xmin`), ordered by (txid, seq): whatever commits later has a txid at or
 * above that horizon, so it can only appear after a poller's cursor, never behind it. Writers
 * take no lock for this.
 */
import type { Knex } from 'knex';
import { insertSql, type Statement } from '../infrastructure/db/insert-sql';
import type { components } from '../../sdk/src/schema';
import type { Caller } from './caller';
import { localTimeWithOffset } from './local-time';

export type ChangeKind = components['schemas']['ChangeKind'];

export type ChangeData = components['schemas']['ChangeData'];
export type ChangeAction = ChangeData['action'];

export interface ChangeInput {
  kind: ChangeKind;
  /**
   * What a program reads instead of `summary`. The entry's action is `data.action`, so that a
   * handler cannot write an action without the details the spec gives that action.
   */
  data: ChangeData;
  summary: string;
  job?: { id: string; job_number: number } | null;
  /** The record the entry is about (a note, a contact), when there is one. */
  recordId?: string;
}

/** A feed entry as read back, with its person's name. */
export interface StoredEntry {
  seq: number;
  kind: ChangeKind;
  action: string;
  summary: string;
  /** Null for an entry the service made by itself (an endpoint it disabled). */
  person_id: string | null;
  person_name: string | null;
  via_key: boolean;
  via_client: string | null;
  at: Date;
  data: unknown;
}

/** What every reader of the feed answers of an entry: who did what, and when in UTC and on the company's clock. */
export function entryAnswer(e: StoredEntry, timezone: string) {
  return {
    id: String(e.seq),
    kind: e.kind,
    action: e.action,
    summary: e.summary,
    person: e.person_id ? { id: e.person_id, name: e.person_name ?? '' } : null,
    via_key: e.via_key,
    via_client: e.via_client,
    at: e.at.toISOString(),
    at_local: localTimeWithOffset(e.at, timezone),
    data: storedData(e.data),
  };
}

/** An entry of the company's feed as list_changes reads it: with its job, and the time it was settled in. */
export interface FeedRow extends StoredEntry {
  txid: number;
  job_id: string | null;
  job_number: number | null;
}

/** The company's feed entries with their person's name, for list_changes and webhook deliveries to narrow and order. */
export function feedRows(db: Knex, companyId: string): Knex.QueryBuilder {
  return db('change_entries as e')
    .leftJoin('people as p', 'p.id', 'e.person_id')
    .where('e.company_id', companyId)
    .select('e.*', 'p.name as person_name');
}

/** A feed entry as list_changes answers it, and as a webhook delivers it. */
export function feedEntryAnswer(e: FeedRow, timezone: string) {
  return {
    ...entryAnswer(e, timezone),
    job: e.job_id ? { id: e.job_id, job_number: Number(e.job_number) } : null,
  };
}

/**
 * An entry's stored details as answered: null for entries written before they were recorded
 * (migration 006). Drivers hand jsonb back parsed or as text.
 */
function storedData(value: unknown): ChangeData | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as ChangeData;
}

/**
 * What a write handler says it changed; written by the pipeline when the handler succeeds. The
 * handler names the one entry that undo shows for the write (`{ undo: true }`): a write that
 * records rows without naming one is refused by the pipeline.
 */
export class ChangeLog {
  readonly entries: ChangeInput[] = [];
  /** The entry undo shows (its kind, summary and job) when it takes this write back. */
  undoEntry: ChangeInput | null = null;

  add(entry: ChangeInput, options: { undo?: boolean } = {}): void {
    this.entries.push(entry);
    if (!options.undo) return;
    if (this.undoEntry)
      throw new Error(`two entries named for undo: "${this.undoEntry.summary}" and "${entry.summary}"`);
    this.undoEntry = entry;
  }
}

/** The statement that appends the entries to the company's feed. */
export function changeEntries(
  trx: Knex.Transaction,
  caller: Caller,
  entries: ChangeInput[],
): Statement | null {
  if (entries.length === 0) return null;
  return insertSql(
    'change_entries',
    entries.map((entry) => ({
      company_id: caller.companyId,
      txid: trx.raw('pg_current_xact_id()::text::bigint'),
      kind: entry.kind,
      action: entry.data.action,
      summary: entry.summary,
      data: JSON.stringify(entry.data),
      job_id: entry.job?.id ?? null,
      job_number: entry.job?.job_number ?? null,
      record_id: entry.recordId ?? null,
      person_id: caller.personId,
      key_id: caller.keyId,
      via_key: true,
      via_client: caller.grant?.clientName ?? null,
    })),
  );
}

/** The horizon: entries of transactions below it are all committed or gone. */
export const SETTLED_TXID = 'pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

/**
 * How far the feed's horizon lags: write transactions still open anywhere on the PostgreSQL
 * server (every database counts) hold back the entries of every transaction that began after
 * them. A stuck one shows here as a count and an age.
 */
export async function feedHorizon(
  db: Knex,
): Promise<{ open_write_transactions: number; oldest_open_write_seconds: number }> {
  const row = await db('pg_stat_activity')
    .whereNotNull('backend_xid')
    .whereRaw('pid <> pg_backend_pid()')
    .first(
      db.raw('count(*)::int as open'),
      db.raw('coalesce(extract(epoch from now() - min(xact_start)), 0)::float8 as oldest'),
    );
  return {
    open_write_transactions: Number(row.open),
    oldest_open_write_seconds: Math.round(Number(row.oldest) * 10) / 10,
  };
}
