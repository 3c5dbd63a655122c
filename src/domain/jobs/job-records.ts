/** Reading jobs: resolving `{job_id}`, and the summary and detail shapes of the spec. */
import { normalPhone } from '../people/phones';
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { notFound } from '../../platform/errors';
import { estimateSummaries } from '../estimates/estimate-summaries';
import { prepared } from '../../infrastructure/db/prepared';
import { jobNumberOf } from '../../platform/job-ref';
import type { Caller } from '../../platform/caller';
import { appliedProfileSql, type JobProgramProfile } from '../company/program-profiles';
import { formCounts, formCountsSql, type FormState } from '../forms/form-listing';

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
  program_profile_id: string | null;
  photo_count: number;
  customer_name: string | null;
  created_by: string;
  created_by_name: string;
  created_at: Date;
  updated_at: Date;
}

/** Jobs with their status name, customer name and creator: the columns summaries and details need. */
export function jobsQuery(db: Knex, companyId: string): Knex.QueryBuilder {
  return withNames(db, db('jobs').where('company_id', companyId));
}

/**
 * Adds the status name, creator and customer name to the jobs `jobs` selects (aliased `j`). A
 * page of search results is cut first, inside `jobs`, and named after: joined before, PostgreSQL
 * joined every match (thousands for a common name) before sorting and cutting.
 */
export function withNames(db: Knex, jobs: Knex.QueryBuilder): Knex.QueryBuilder {
  return db
    .from(jobs.as('j'))
    .join('statuses as s', 's.id', 'j.status_id')
    .join('people as creator', 'creator.id', 'j.created_by')
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
  const row = await whereRef(jobsQuery(db, caller.companyId), ref).first();
  if (!row) throw notFound('job');
  return row as JobRow;
}

function whereRef(query: Knex.QueryBuilder, ref: string): Knex.QueryBuilder {
  const jobNumber = jobNumberOf(ref);
  return jobNumber === null ? query.where('j.id', ref) : query.where('j.job_number', jobNumber);
}

export function formatAddress(
  job: Pick<JobRow, 'address_line1' | 'city' | 'region' | 'postal_code'>,
): string | null {
  const regionLine = [job.region, job.postal_code].filter(Boolean).join(' ');
  const parts = [job.address_line1, job.city, regionLine].filter(Boolean);
  return parts.length ? parts.join(', ') : null;
}

/** What a change-feed entry says about the job it belongs to. */
export function jobRefOf(job: Pick<JobRow, 'id' | 'job_number'>): { id: string; job_number: number } {
  return { id: job.id, job_number: job.job_number };
}

export interface PersonOnJobRow {
  id: string;
  name: string;
  role: string;
  phone: string | null;
  email: string | null;
  address_line1: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
}

export function toJobPerson(row: PersonOnJobRow): JobDetail['people'][number] {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    phone: row.phone,
    phone_normalized: normalPhone(row.phone),
    email: row.email,
    address: formatAddress(row),
  };
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

/**
 * One job in full, in one query: people, assignees and the newest notes come as JSON arrays of
 * the same row, and its forms as one grouped count, so that get_job costs one round trip.
 */
export async function loadJobDetail(db: Knex, caller: Caller, ref: string): Promise<JobDetail> {
  const query = jobsQuery(db, caller.companyId).select(
    db.raw(`coalesce((select json_agg(json_build_object('id', c.id, 'name', c.name, 'role', jc.role, 'phone', c.phone, 'email', c.email,
                        'address_line1', c.address_line1, 'city', c.city, 'region', c.region, 'postal_code', c.postal_code)
                        order by jc.created_at, jc.id)
                      from job_contacts jc join contacts c on c.id = jc.contact_id where jc.job_id = j.id), '[]') as people`),
    db.raw(`coalesce((select json_agg(json_build_object('id', p.id, 'name', p.name) order by p.name)
                      from job_assignees a join people p on p.id = a.person_id where a.job_id = j.id), '[]') as assignees`),
    db.raw(`coalesce((select json_agg(n order by n.created_at desc, n.id desc) from (
                        select n.id, n.text, n.created_at, p.id as author_id, p.name as author_name
                          from notes n join people p on p.id = n.author_id
                         where n.job_id = j.id order by n.created_at desc, n.id desc limit ${RECENT_NOTES}) n), '[]') as recent_notes`),
    db.raw('exists (select 1 from estimates e where e.job_id = j.id) as has_estimates'),
    db.raw(`${appliedProfileSql(false)} as program_profile`),
    db.raw(`${formCountsSql('j')} as form_counts`),
  );
  const name = jobNumberOf(ref) === null ? 'job_detail_by_id' : 'job_detail_by_number';
  const job = (await prepared(whereRef(query, ref), name).first()) as (JobRow & DetailParts) | undefined;
  if (!job) throw notFound('job');
  return toDetail(job, job.has_estimates ? await estimateSummaries(db, job.id) : []);
}

/** The detail of a job just created, from the rows written: what get_job would read back. */
export function newJobDetail(
  job: Omit<JobRow, 'customer_name' | 'created_by_name'>,
  parts: {
    createdByName: string;
    people: PersonOnJobRow[];
    assignees: JobDetail['assignees'];
    programProfile: JobProgramProfile;
  },
): JobDetail {
  const customer = parts.people.find((person) => person.role === 'customer');
  return toDetail(
    {
      ...job,
      customer_name: customer?.name ?? null,
      created_by_name: parts.createdByName,
      people: parts.people,
      assignees: parts.assignees,
      recent_notes: [],
      has_estimates: false,
      program_profile: parts.programProfile,
      form_counts: null,
    },
    [],
  );
}

interface DetailParts {
  has_estimates: boolean;
  people: PersonOnJobRow[];
  assignees: JobDetail['assignees'];
  recent_notes: { id: string; text: string; created_at: string; author_id: string; author_name: string }[];
  program_profile: JobProgramProfile;
  /** By state; null when the job has no form. */
  form_counts: Partial<Record<FormState, number>> | null;
}

function toDetail(job: JobRow & DetailParts, estimates: JobDetail['estimates']): JobDetail {
  return {
    ...toSummary(job),
    cancellation: job.cancelled_at
      ? { at: job.cancelled_at.toISOString(), reason: job.cancel_reason, returns_to: job.status_name }
      : null,
    address_parts: {
      line1: job.address_line1,
      city: job.city,
      region: job.region,
      postal_code: job.postal_code,
    },
    loss_type: job.loss_type,
    date_of_loss: job.date_of_loss,
    cause_of_loss: job.cause_of_loss,
    water_category: job.water_category,
    claim: {
      claim_number: job.claim_number,
      carrier: job.carrier,
      policy_number: job.policy_number,
      adjuster: job.adjuster,
    },
    referral_source: job.referral_source,
    people: job.people.map(toJobPerson),
    assignees: job.assignees,
    recent_notes: job.recent_notes.map((n) => ({
      id: n.id,
      text: n.text,
      author: { id: n.author_id, name: n.author_name },
      created_at: new Date(n.created_at).toISOString(),
    })),
    estimates,
    program_profile: job.program_profile,
    forms: formCounts(job.form_counts),
    created_at: job.created_at.toISOString(),
    created_by: { id: job.created_by, name: job.created_by_name },
    updated_at: job.updated_at.toISOString(),
  };
}
