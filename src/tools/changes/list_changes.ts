import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, SAFE_MAX } from '../../platform/pagination';
import { feedEntryAnswer, feedRows, SETTLED_TXID, type FeedRow } from '../../platform/changes';

const DEFAULT_LIMIT = 25;

/**
 * Settled entries after the cursor, oldest first (see platform/changes.ts). The cursor is the
 * (txid, seq) of the last entry returned; on an empty page it stays where it was. `since` narrows
 * by the entries' time (their transaction's start).
 */
export const list_changes: ReadHandler<'list_changes'> = async ({ db, caller }, { query }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const after = query.cursor
    ? decodeCursor(query.cursor, { txid: SAFE_MAX, seq: SAFE_MAX })
    : { txid: 0, seq: 0 };
  const entries = feedRows(db, caller.companyId)
    .whereRaw('(e.txid, e.seq) > (?, ?)', [Number(after.txid), Number(after.seq)])
    .whereRaw(`e.txid < ${SETTLED_TXID}`);
  if (query.kind) entries.where('e.kind', query.kind);
  if (query.since) {
    // A calendar date starts at its midnight in the company's timezone.
    if (/^\d{4}-\d{2}-\d{2}$/.test(query.since))
      entries.whereRaw('e.at >= (?::date)::timestamp at time zone ?', [query.since, caller.timezone]);
    else entries.where('e.at', '>=', new Date(query.since));
  }
  const rows = (await entries.orderBy([{ column: 'e.txid' }, { column: 'e.seq' }]).limit(limit)) as FeedRow[];
  const last = rows.at(-1);
  return {
    data: rows.map((e) => feedEntryAnswer(e, caller.timezone)),
    next_cursor: encodeCursor(
      last ? { txid: last.txid, seq: last.seq } : { txid: Number(after.txid), seq: Number(after.seq) },
    ),
  };
};
