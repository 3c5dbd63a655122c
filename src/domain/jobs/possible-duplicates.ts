/**
 * Jobs a new one may double: the company's jobs not cancelled that share a phone (its last ten
 * digits, so `+1` or not), the street address (case and spacing aside) or the claim number (case,
 * spaces and punctuation aside). Each fact is one lookup on its own index (migration 013), read
 * newest first and only as far as the answer goes, so the check costs the same however many jobs
 * the company has.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { claimKey, phoneKey, streetKey } from '../../infrastructure/db/migrations/013_bounded_lookups';
import { digitsOf } from './search-text';

type Duplicate = components['schemas']['CreatedJob']['possible_duplicates'][number];
type Match = Duplicate['matched'][number];

const MIN_PHONE_DIGITS = 7;
/** The answer's length (the spec's maxItems). */
const MOST = 10;

export interface NewJobFacts {
  id: string;
  phone?: string | null;
  address_line1?: string | null;
  claim_number?: string | null;
}

/**
 * Each lookup gives the newest jobs sharing one fact; its parameters are the company and the
 * value. The limits are written into the text, not bound: with a bound limit PostgreSQL cannot
 * use one plan for every call and plans each call afresh, which cost more than running it.
 */
const LOOKUPS: Record<Match, string> = {
  // A contact may be on many jobs: the newest contacts with the number, then their jobs.
  phone: `select jc.job_id from job_contacts jc where jc.contact_id in (
      select c.id from contacts c where ${phoneKey('c.company_id', 'c.phone_digits')} = ${phoneKey('?::text', '?::text')} order by c.created_at desc limit ${MOST})`,
  address: `select j.id as job_id from jobs j where j.cancelled_at is null and ${streetKey('j.company_id', 'j.address_line1')} = ${streetKey('?::text', '?::text')} order by j.job_number desc limit ${MOST}`,
  claim_number: `select j.id as job_id from jobs j where j.cancelled_at is null and ${claimKey('j.company_id', 'j.claim_number')} = ${claimKey('?::text', '?::text')} order by j.job_number desc limit ${MOST}`,
};

/** The facts the new job has, with the value each is looked up by. */
function factsOf(job: NewJobFacts): [Match, string][] {
  const facts: [Match, string][] = [];
  const phone = digitsOf(job.phone ?? '').slice(-10);
  if (phone.length >= MIN_PHONE_DIGITS) facts.push(['phone', phone]);
  if (job.address_line1?.trim()) facts.push(['address', job.address_line1]);
  if (job.claim_number?.trim()) facts.push(['claim_number', job.claim_number]);
  return facts;
}

/** What the statement inserting the job answers for its duplicates: JSON rows, newest first. */
export interface DuplicateRow {
  job_id: string;
  job_number: number;
  title: string;
  status: string;
  matched: Match[];
}

/**
 * The duplicates as one more column of the statement that inserts the job (no round trip of its
 * own). The statement's snapshot is from before the insert, so the new job is not among them.
 */
export function possibleDuplicatesColumn(db: Knex, companyId: string, job: NewJobFacts): Knex.Raw {
  const facts = factsOf(job);
  if (facts.length === 0) return db.raw("'[]'::json as possible_duplicates");
  const matches = facts
    .map(([fact]) => `(select job_id, '${fact}' as fact from (${LOOKUPS[fact]}) m)`)
    .join(' union all ');
  const duplicates = `with matches as (${matches})
    select j.id as job_id, j.job_number, j.title, s.name as status, array_agg(distinct m.fact) as matched
    from matches m join jobs j on j.id = m.job_id join statuses s on s.id = j.status_id
    where j.cancelled_at is null and j.id <> ?
    group by j.id, s.name order by j.job_number desc limit ${MOST}`;
  const bindings = [...facts.flatMap(([, value]) => [companyId, value]), job.id];
  return db.raw(
    `(select coalesce(json_agg(d order by d.job_number desc), '[]'::json) from (${duplicates}) d) as possible_duplicates`,
    bindings,
  );
}

/** The duplicates in the answer's shape: what matched, in the spec's order. */
export function toDuplicates(rows: DuplicateRow[]): Duplicate[] {
  const order: Match[] = ['phone', 'address', 'claim_number'];
  return rows.map((row) => ({ ...row, matched: order.filter((m) => row.matched.includes(m)) }));
}
