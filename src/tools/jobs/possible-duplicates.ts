/**
 * Jobs a new one may double: the company's jobs not cancelled that share a phone (its last ten
 * digits, so `+1` or not), the street address (case and spacing aside) or the claim number.
 */
import type { Knex } from 'knex';
import type { components } from '../../generated/api';
import { digitsOf } from './search-text';

type Duplicate = components['schemas']['CreatedJob']['possible_duplicates'][number];
type Match = Duplicate['matched'][number];

const MIN_PHONE_DIGITS = 7;

export interface NewJobFacts {
  id: string;
  phone?: string | null;
  address_line1?: string | null;
  claim_number?: string | null;
}

export async function possibleDuplicates(db: Knex, companyId: string, job: NewJobFacts): Promise<Duplicate[]> {
  const phone = digitsOf(job.phone ?? '').slice(-10);
  const street = job.address_line1?.trim() ? job.address_line1 : null;
  const claim = job.claim_number?.trim() ? job.claim_number : null;
  if (phone.length < MIN_PHONE_DIGITS && !street && !claim) return [];
  const sameStreet = "lower(regexp_replace(trim(j.address_line1), '\\s+', ' ', 'g')) = lower(regexp_replace(trim(?::text), '\\s+', ' ', 'g'))";
  const rows = (await db('jobs as j')
    .join('statuses as s', 's.id', 'j.status_id')
    .where('j.company_id', companyId)
    .whereNot('j.id', job.id)
    .whereNull('j.cancelled_at')
    .select('j.id', 'j.job_number', 'j.title', 's.name as status_name')
    .select(db.raw(`exists (select 1 from job_contacts jc join contacts c on c.id = jc.contact_id where jc.job_id = j.id and ?::text <> '' and right(c.phone_digits, 10) = ?::text) as phone`, [phone.length >= MIN_PHONE_DIGITS ? phone : '', phone]))
    .select(db.raw(`(?::text is not null and ${sameStreet}) as address`, [street, street]))
    .select(db.raw('(?::text is not null and lower(trim(j.claim_number)) = lower(trim(?::text))) as claim_number', [claim, claim]))
    .orderBy('j.job_number', 'desc')) as ({ id: string; job_number: number; title: string; status_name: string } & Record<Match, boolean>)[];
  return rows
    .map((row) => ({ job_id: row.id, job_number: row.job_number, title: row.title, status: row.status_name, matched: (['phone', 'address', 'claim_number'] as const).filter((m) => row[m]) }))
    .filter((duplicate) => duplicate.matched.length > 0);
}
