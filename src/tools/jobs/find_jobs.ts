import type { Knex } from 'knex';
import type { ReadHandler, Caller, QueryOf } from '../../platform/handler';
import { decodeCursor, encodeCursor, INT4_MAX, pageOf } from '../../platform/pagination';
import { findStatus } from '../context/lookups';
import { CANCELLED, toSummary, withNames, type JobRow } from './job-records';
import { digitsOf } from './search-text';
import { likeContains } from '../../db/like';

const DEFAULT_LIMIT = 25;
const MIN_PHONE_DIGITS = 4;
const PHONE_LIKE = /^[\d\s().+-]+$/;

export const find_jobs: ReadHandler<'find_jobs'> = async ({ db, caller }, { query }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const jobs = db('jobs as j').where('j.company_id', caller.companyId).select('j.*');

  const jobNumber = query.q ? /^\s*#(\d{1,9})\s*$/.exec(query.q) : null;
  if (jobNumber) jobs.where('j.job_number', Number(jobNumber[1]));
  else if (query.q) matchWords(jobs, query.q);
  await applyFilters(db, jobs, caller, query);

  if (query.cursor) jobs.where('j.job_number', '<', decodeCursor(query.cursor, { before: INT4_MAX }).before);
  const page = jobs.orderBy('j.job_number', 'desc').limit(limit + 1);
  const rows = (await withNames(db, page).orderBy('j.job_number', 'desc')) as JobRow[];
  return pageOf(rows, limit, toSummary, (row) => encodeCursor({ before: row.job_number }));
};

/** Every word must match somewhere; a phone written with spaces counts as one word. */
function matchWords(jobs: Knex.QueryBuilder, q: string): void {
  const text = q.trim();
  const words = PHONE_LIKE.test(text) && digitsOf(text).length >= MIN_PHONE_DIGITS ? [text] : text.split(/\s+/);
  for (const word of words) {
    const digits = digitsOf(word);
    jobs.where((match) => {
      match.where('j.search_text', 'like', likeContains(word.toLowerCase()));
      if (digits.length >= MIN_PHONE_DIGITS && PHONE_LIKE.test(word)) match.orWhereRaw('j.search_digits like ?', [`%${digits}%`]);
      if (/^\d{1,9}$/.test(word)) match.orWhere('j.job_number', Number(word));
    });
  }
}

async function applyFilters(db: Knex, jobs: Knex.QueryBuilder, caller: Caller, query: QueryOf<'find_jobs'>): Promise<void> {
  if (query.status?.toLowerCase() === CANCELLED.toLowerCase()) jobs.whereNotNull('j.cancelled_at');
  else if (query.status) jobs.where('j.status_id', (await findStatus(db, caller.companyId, query.status)).id).whereNull('j.cancelled_at');

  if (query.photos === 'with') jobs.where('j.photo_count', '>', 0);
  if (query.photos === 'without') jobs.where('j.photo_count', 0);

  const dryingLog = db('drying_logs as d').whereRaw('d.job_id = j.id');
  if (query.drying === 'with') jobs.whereExists(dryingLog);
  if (query.drying === 'without') jobs.whereNotExists(dryingLog);
  if (query.drying === 'active') {
    const today = db.raw('(now() at time zone ?)::date', [caller.timezone]);
    jobs.whereExists(dryingLog.where('d.start_date', '<=', today).whereRaw('d.start_date + d.planned_days > ?', [today]));
  }

  // Calendar days are the company's: a day starts at midnight in its timezone.
  if (query.created_from) jobs.whereRaw('j.created_at >= (?::date)::timestamp at time zone ?', [query.created_from, caller.timezone]);
  if (query.created_to) jobs.whereRaw('j.created_at < (?::date + 1)::timestamp at time zone ?', [query.created_to, caller.timezone]);
}
