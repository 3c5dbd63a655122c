/**
 * What people type into find_jobs, read the way they mean it: `job #1`, `job 1`, `#1` name job 1;
 * a bare `1` ranks job 1 first; and each result says what it matched on.
 */
import type { components } from '../../../sdk/src/schema';
import type { JobRow } from './job-records';
import { compactOf, digitsOf } from './search-text';

type MatchedOn = components['schemas']['JobMatch']['matched_on'][number];

/** At least this many digits match a phone or a claim number by digits. */
export const MIN_PHONE_DIGITS = 4;
export const PHONE_LIKE = /^[\d\s().+-]+$/;

/** The job number `q` names: `exact` for `#1`, `job 1`, `job #1`, `no. 1`; not exact for a bare `1`. */
export function jobNumberIn(q: string): { number: number; exact: boolean } | null {
  const named = /^\s*(?:job\s*(?:no\.?|number)?\s*#?|#|no\.?\s*)\s*(\d{1,9})\s*$/i.exec(q);
  if (named) return { number: Number(named[1]), exact: true };
  const bare = /^\s*(\d{1,9})\s*$/.exec(q);
  return bare && digitsOf(q).length < MIN_PHONE_DIGITS ? { number: Number(bare[1]), exact: false } : null;
}

/** A word as a claim or policy number compares (letters and digits only), when it could be one: four characters or more, a digit among them. */
export function claimLike(word: string): string | null {
  const compact = compactOf(word);
  return compact.length >= MIN_PHONE_DIGITS && /\d/.test(compact) ? compact : null;
}

/** The words of `q`, a phone written with spaces being one. */
export function wordsOf(q: string): string[] {
  const text = q.trim();
  return PHONE_LIKE.test(text) && digitsOf(text).length >= MIN_PHONE_DIGITS ? [text] : text.split(/\s+/);
}

type SearchedRow = JobRow & { search_digits: string };

/** The fields of the job that `q` matched; `person` for someone else on the job (a tenant, an adjuster's email). */
export function matchedOn(row: SearchedRow, q: string, number: number | null): MatchedOn[] {
  const found = new Set<MatchedOn>();
  if (number !== null && row.job_number === number) found.add('number');
  for (const word of number !== null && row.job_number === number ? [] : wordsOf(q)) {
    const text = word.toLowerCase();
    const digits = digitsOf(word);
    const has = (value: string | null) => Boolean(value?.toLowerCase().includes(text));
    const byDigits = (value: string | null) =>
      digits.length >= MIN_PHONE_DIGITS && PHONE_LIKE.test(word) && digitsOf(value ?? '').includes(digits);
    const compact = claimLike(word);
    const byCompact = (value: string | null) => compact !== null && compactOf(value ?? '').includes(compact);
    const fields: [MatchedOn, boolean][] = [
      ['customer', has(row.customer_name)],
      ['title', has(row.title)],
      ['address', has(row.address_line1) || has(row.city)],
      ['claim', has(row.claim_number) || byDigits(row.claim_number) || byCompact(row.claim_number)],
      ['policy', has(row.policy_number) || byDigits(row.policy_number) || byCompact(row.policy_number)],
      ['carrier', has(row.carrier)],
      ['adjuster', has(row.adjuster)],
      ['phone', byDigits(row.search_digits) && !byDigits(row.claim_number) && !byDigits(row.policy_number)],
    ];
    const hits = fields.filter(([, hit]) => hit).map(([field]) => field);
    for (const field of hits.length > 0 ? hits : (['person'] as const)) found.add(field);
  }
  return [...found];
}
