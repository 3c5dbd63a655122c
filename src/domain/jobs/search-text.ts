/**
 * What `find_jobs` searches: a job's words (title, street, city, claim, carrier, adjuster, its
 * people's names and emails) lower-cased in `search_text`, with the claim and policy numbers also
 * compacted (`SF-88-41207` as `sf8841207`, so that either way of writing it finds the other), and
 * the digits of phones and claim numbers in `search_digits`, both trigram-indexed. They are columns of the job row, changed
 * through the recorded writes, so that undo puts them back with the rest of the job.
 */
import type { Knex } from 'knex';
import type { WriteCallContext } from '../../platform/handler';

export interface SearchSource {
  title: string;
  address_line1?: string | null;
  city?: string | null;
  claim_number?: string | null;
  policy_number?: string | null;
  carrier?: string | null;
  adjuster?: string | null;
  people: { name: string; phone?: string | null; email?: string | null }[];
}

export type SearchColumns = Record<'search_text' | 'search_digits', string>;

export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

/** Letters and digits only, lower case: how claim and policy numbers compare. */
export function compactOf(value: string): string {
  return value.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
}

/** The number compacted, when that differs from it as written (migration 016 adds the same). */
function compactedWord(value: string | null | undefined): string | null {
  const compact = compactOf(value ?? '');
  return compact && compact !== value?.toLowerCase() ? compact : null;
}

export function searchColumns(source: SearchSource): SearchColumns {
  const words = [
    source.title,
    source.address_line1,
    source.city,
    source.claim_number,
    source.policy_number,
    source.carrier,
    source.adjuster,
    ...source.people.flatMap((p) => [p.name, p.email]),
    compactedWord(source.claim_number),
    compactedWord(source.policy_number),
  ];
  const numbers = [source.claim_number, source.policy_number, ...source.people.map((p) => p.phone)];
  return {
    search_text: words.filter(Boolean).join(' | ').toLowerCase(),
    search_digits: numbers
      .map((n) => digitsOf(n ?? ''))
      .filter(Boolean)
      .join(' '),
  };
}

async function peopleOf(db: Knex, jobId: string): Promise<SearchSource['people']> {
  return db('job_contacts as jc')
    .join('contacts as c', 'c.id', 'jc.contact_id')
    .where('jc.job_id', jobId)
    .select('c.name', 'c.phone', 'c.email');
}

/** The search columns of a job whose own fields are `job` (after a change) and people are as stored. */
export async function searchColumnsOf(
  db: Knex,
  jobId: string,
  job: Omit<SearchSource, 'people'>,
): Promise<SearchColumns> {
  return searchColumns({ ...job, people: await peopleOf(db, jobId) });
}

/** After its people changed: brings the jobs' search columns up to date. */
export async function refreshJobSearch(ctx: WriteCallContext, jobIds: string[]): Promise<void> {
  for (const jobId of jobIds) {
    const job = await ctx.db('jobs').where({ id: jobId }).first();
    const fresh = await searchColumnsOf(ctx.db, jobId, job);
    if (fresh.search_text !== job.search_text || fresh.search_digits !== job.search_digits)
      await ctx.rows.update('jobs', jobId, fresh);
  }
}
