import type { Knex } from 'knex';
import type { QueryOf } from '../../platform/handler';
import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, INT4_MAX, pageOf } from '../../platform/pagination';
import { findStatus } from '../../domain/company/lookups';
import { CANCELLED, toSummary, withNames, type JobRow } from '../../domain/jobs/job-records';
import { digitsOf } from '../../domain/jobs/search-text';
import { assigneesByJob } from '../../domain/people/assignees';
import {
  claimLike,
  jobNumberIn,
  matchedOn,
  MIN_PHONE_DIGITS,
  PHONE_LIKE,
  wordsOf,
} from '../../domain/jobs/job-matches';
import { likeContains } from '../../infrastructure/db/like';
import type { Caller } from '../../platform/caller';

const DEFAULT_LIMIT = 25;

export const find_jobs: ReadHandler<'find_jobs'> = async ({ db, caller }, { query }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const jobs = db('jobs as j').where('j.company_id', caller.companyId).select('j.*');

  const asked = query.q ? jobNumberIn(query.q) : null;
  if (asked?.exact) jobs.where('j.job_number', asked.number);
  else if (query.q) matchWords(jobs, query.q);
  await applyFilters(db, jobs, caller, query);

  // A bare number ranks its job first; the pages after the first leave it out.
  const ranked = asked && !asked.exact ? asked.number : null;
  if (query.cursor) {
    jobs.where('j.job_number', '<', decodeCursor(query.cursor, { before: INT4_MAX }).before);
    if (ranked !== null) jobs.whereNot('j.job_number', ranked);
  }
  const order = (q: Knex.QueryBuilder) =>
    (ranked === null || query.cursor ? q : q.orderByRaw('(j.job_number = ?) desc', [ranked])).orderBy(
      'j.job_number',
      'desc',
    );
  const rows = (await order(withNames(db, order(jobs).limit(limit + 1)))) as (JobRow & {
    search_digits: string;
  })[];
  const assignees = await assigneesByJob(
    db,
    rows.map((row) => row.id),
  );
  const toMatch = (row: (typeof rows)[number]) => ({
    ...toSummary(row),
    assignees: assignees.get(row.id) ?? [],
    matched_on: query.q ? matchedOn(row, query.q, asked?.number ?? null) : [],
  });
  return pageOf(rows, limit, toMatch, (row) =>
    encodeCursor({ before: row.job_number === ranked ? INT4_MAX : row.job_number }),
  );
};

/** Every word must match somewhere; a phone written with spaces counts as one word. */
function matchWords(jobs: Knex.QueryBuilder, q: string): void {
  for (const word of wordsOf(q)) {
    const digits = digitsOf(word);
    jobs.where((match) => {
      match.where('j.search_text', 'like', likeContains(word.toLowerCase()));
      if (digits.length >= MIN_PHONE_DIGITS && PHONE_LIKE.test(word))
        match.orWhereRaw('j.search_digits like ?', [`%${digits}%`]);
      const compact = claimLike(word);
      if (compact !== null && compact !== word.toLowerCase())
        match.orWhere('j.search_text', 'like', likeContains(compact));
      if (/^\d{1,9}$/.test(word)) match.orWhere('j.job_number', Number(word));
    });
  }
}

async function applyFilters(
  db: Knex,
  jobs: Knex.QueryBuilder,
  caller: Caller,
  query: QueryOf<'find_jobs'>,
): Promise<void> {
  if (query.status?.toLowerCase() === CANCELLED.toLowerCase()) jobs.whereNotNull('j.cancelled_at');
  else if (query.status)
    jobs
      .where('j.status_id', (await findStatus(db, caller.companyId, query.status)).id)
      .whereNull('j.cancelled_at');

  if (query.photos === 'with') jobs.where('j.photo_count', '>', 0);
  if (query.photos === 'without') jobs.where('j.photo_count', 0);

  const dryingLog = db('drying_logs as d').whereRaw('d.job_id = j.id');
  if (query.drying === 'with') jobs.whereExists(dryingLog);
  if (query.drying === 'without') jobs.whereNotExists(dryingLog);
  if (query.drying === 'active') {
    const today = db.raw('(now() at time zone ?)::date', [caller.timezone]);
    jobs.whereExists(
      dryingLog.where('d.start_date', '<=', today).whereRaw('d.start_date + d.planned_days > ?', [today]),
    );
  }

  // Calendar days are the company's: a day starts at midnight in its timezone.
  if (query.created_from)
    jobs.whereRaw('j.created_at >= (?::date)::timestamp at time zone ?', [
      query.created_from,
      caller.timezone,
    ]);
  if (query.created_to)
    jobs.whereRaw('j.created_at < (?::date + 1)::timestamp at time zone ?', [
      query.created_to,
      caller.timezone,
    ]);
}
