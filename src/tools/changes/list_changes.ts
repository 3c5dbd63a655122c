import type { ReadHandler } from '../../platform/handler';
import { decodeCursor, encodeCursor } from '../../platform/pagination';
import type { ChangeKind } from '../../platform/changes';

const DEFAULT_LIMIT = 25;

/**
 * Entries after the cursor, oldest first. When the page is not full, the cursor moves on to the
 * newest position read in the same statement (one snapshot): every position up to it is
 * committed (see platform/changes.ts), so nothing behind the cursor can appear later.
 */
export const list_changes: ReadHandler<'list_changes'> = async ({ db, caller }, { query }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const after = query.cursor ? Number(decodeCursor(query.cursor, ['after'] as const).after) : 0;
  const kindFilter = query.kind ? 'and e.kind = ?' : '';
  const { rows } = await db.raw(
    `select e.*, p.name as person_name, head.seq as head
       from (select coalesce(max(seq), 0) as seq from change_entries where company_id = ?) head
       left join lateral (
         select * from change_entries e
          where e.company_id = ? and e.seq > ? ${kindFilter}
          order by e.seq limit ?
       ) e on true
       left join people p on p.id = e.person_id
      order by e.seq`,
    [caller.companyId, caller.companyId, after, ...(query.kind ? [query.kind] : []), limit],
  );
  const entries = (rows as Record<string, unknown>[]).filter((row) => row.seq !== null);
  const head = Number(rows[0]?.head ?? 0);
  const last = entries.length ? Number(entries[entries.length - 1].seq) : after;
  const next = entries.length < limit ? Math.max(last, head) : last;
  return {
    data: entries.map((e) => ({
      id: String(e.seq),
      kind: e.kind as ChangeKind,
      action: String(e.action),
      summary: String(e.summary),
      job: e.job_id ? { id: String(e.job_id), job_number: Number(e.job_number) } : null,
      person: { id: String(e.person_id), name: String(e.person_name) },
      via_key: Boolean(e.via_key),
      at: new Date(e.at as string).toISOString(),
    })),
    next_cursor: encodeCursor({ after: next }),
  };
};
