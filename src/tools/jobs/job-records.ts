/** Reading jobs: resolving `{job_id}`, and the summary and detail shapes of the spec. */
import type { Knex } from 'knex';
import type { components } from '../../generated/api';
import { notFound } from '../../platform/errors';
import type { Caller } from '../../platform/handler';

export type JobSummary = components['schemas']['JobSummary'];
export type JobDetail = components['schemas']['JobDetail'];
type LossType = components['schemas']['LossType'];

export const CANCELLED = 'Cancelled';
const RECENT_NOTES = 5;

export interface JobRow {
  id: string;
  company_id: string;
  job_number: number;
  title: string;
  status_id: string;
  status_name: string;
  cancelled_at: Date | null;
  cancel_reason: string | null;
  loss_type: LossType | null;
  date_of_loss: string | null;
  cause_of_loss: string | null;
  water_category: number | null;
  address_line1: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  claim_number: string | null;
  carrier: string | null;
  policy_number: string | null;
  adjuster: string | null;
  referral_source: string | null;
  photo_count: number;
  customer_name: string | null;
  created_by: string;
  created_by_name: string;
  created_at: Date;
  updated_at: Date;
}

/** Jobs with their status name, customer name and creator: the columns summaries and details need. */
export function jobsQuery(db: Knex, companyId: string): Knex.QueryBuilder {
  return db('jobs as j')
    .join('statuses as s', 's.id', 'j.status_id')
    .join('people as creator', 'creator.id', 'j.created_by')
    .where('j.company_id', companyId)
    .select(
      'j.*',
      's.name as status_name',
      'creator.name as created_by_name',
      db.raw(
        `(select c.name from job_contacts jc join contacts c on c.id = jc.contact_id
          where jc.job_id = j.id and jc.role = 'customer' order by jc.created_at, jc.id limit 1) as customer_name`,
      ),
    );
}

/** `job_…`, `16` or `#16` → the job of the caller's company, else 404. */
export async function resolveJob(db: Knex, caller: Caller, ref: string): Promise<JobRow> {
  const query = jobsQuery(db, caller.companyId);
  const byNumber = /^#?(\d+)$/.exec(ref);
  const row = byNumber ? await query.where('j.job_number', Number(byNumber[1])).first() : await query.where('j.id', ref).first();
  if (!row) throw notFound('job');
  return row as JobRow;
}

export function formatAddress(job: Pick<JobRow, 'address_line1' | 'city' | 'region' | 'postal_code'>): string | null {
  const regionLine = [job.region, job.postal_code].filter(Boolean).join(' ');
  const parts = [job.address_line1, job.city, regionLine].filter(Boolean);
  return parts.length ? parts.join(', ') : null;
}

export function toSummary(job: JobRow): JobSummary {
  return {
    id: job.id,
    job_number: job.job_number,
    title: job.title,
    customer_name: job.customer_name,
    address: formatAddress(job),
    status: job.cancelled_at ? CANCELLED : job.status_name,
    photo_count: job.photo_count,
  };
}

export async function toDetail(db: Knex, job: JobRow): Promise<JobDetail> {
  // One query after another: inside a write these run on the transaction's single connection.
  const people = await db('job_contacts as jc')
    .join('contacts as c', 'c.id', 'jc.contact_id')
    .where('jc.job_id', job.id)
    .orderBy([{ column: 'jc.created_at' }, { column: 'jc.id' }])
    .select('c.id', 'c.name', 'jc.role', 'c.phone', 'c.email');
  const assignees = await db('job_assignees as a').join('people as p', 'p.id', 'a.person_id').where('a.job_id', job.id).orderBy('p.name').select('p.id', 'p.name');
  const notes = await db('notes as n')
    .join('people as p', 'p.id', 'n.author_id')
    .where('n.job_id', job.id)
    .orderBy([{ column: 'n.created_at', order: 'desc' }, { column: 'n.id', order: 'desc' }])
    .limit(RECENT_NOTES)
    .select('n.id', 'n.text', 'n.created_at', 'p.id as author_id', 'p.name as author_name');
  return {
    ...toSummary(job),
    cancellation: job.cancelled_at ? { at: job.cancelled_at.toISOString(), reason: job.cancel_reason, returns_to: job.status_name } : null,
    address_parts: { line1: job.address_line1, city: job.city, region: job.region, postal_code: job.postal_code },
    loss_type: job.loss_type,
    date_of_loss: job.date_of_loss,
    cause_of_loss: job.cause_of_loss,
    water_category: job.water_category,
    claim: { claim_number: job.claim_number, carrier: job.carrier, policy_number: job.policy_number, adjuster: job.adjuster },
    referral_source: job.referral_source,
    people,
    assignees,
    recent_notes: notes.map((n) => ({
      id: n.id,
      text: n.text,
      author: { id: n.author_id, name: n.author_name },
      created_at: new Date(n.created_at).toISOString(),
    })),
    estimates: [],
    created_at: job.created_at.toISOString(),
    created_by: { id: job.created_by, name: job.created_by_name },
    updated_at: job.updated_at.toISOString(),
  };
}
