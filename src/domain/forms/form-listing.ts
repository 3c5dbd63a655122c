/**
 * A job's forms as list_job_forms and void_form answer them, and get_job's count of them by
 * state. A form's state is stored (sent, opened, signed, declined, voided) but for `expired`,
 * which is read here from the links' expiry: a form neither signed, declined nor voided whose
 * links have ended. Every reader derives it with the same SQL, so that a count and a list agree.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { notFound } from '../../platform/errors';

export type JobForm = components['schemas']['JobForm'];
export type FormState = components['schemas']['FormState'];
export type JobFormCounts = components['schemas']['JobFormCounts'];

/** The state of the form aliased `alias`, `expired` derived from its links' expiry. */
export function formStateSql(alias: string): string {
  return `(case when ${alias}.state in ('sent', 'opened') and ${alias}.expires_at <= now() then 'expired' else ${alias}.state end)`;
}

/**
 * The job's forms counted by state, as one JSON object (`{ "signed": 2 }`, no key for a state
 * with none): one grouped count over the forms index of the job aliased `job`, for get_job's
 * one statement.
 */
export function formCountsSql(job: string): string {
  return `(select json_object_agg(c.state, c.forms) from (
            select ${formStateSql('f')} as state, count(*)::int as forms
              from job_forms f where f.company_id = ${job}.company_id and f.job_id = ${job}.id
             group by 1) c)`;
}

const STATES: FormState[] = ['sent', 'opened', 'signed', 'declined', 'voided', 'expired'];

/** Every state with its count, 0 for a state with no form. */
export function formCounts(counted: Partial<Record<FormState, number>> | null): JobFormCounts {
  return Object.fromEntries(STATES.map((state) => [state, counted?.[state] ?? 0])) as JobFormCounts;
}

interface SignerRow {
  role: JobForm['signers'][number]['role'];
  name: string;
  email: string | null;
  phone: string | null;
  state: JobForm['signers'][number]['state'];
  opened_at: string | null;
  signed_at: string | null;
  declined_at: string | null;
  decline_reason: string | null;
}

export interface FormRow {
  id: string;
  job_id: string;
  job_number: number;
  template_id: string;
  template_version: number;
  title: string;
  kind: JobForm['kind'];
  state: FormState;
  document_sha256: string;
  expires_at: Date;
  requested_by: string;
  requested_by_name: string;
  signed_at: Date | null;
  signed_document_id: string | null;
  signed_pdf_sha256: string | null;
  voided_at: Date | null;
  voided_by: string | null;
  voided_by_name: string | null;
  void_reason: string | null;
  created_at: Date;
  /** `created_at` as text with its microseconds: a page's cursor. */
  created_key: string;
  signers: SignerRow[];
}

/** The company's forms with their job's number, the people named and the signers, in the order of the template's roles. */
export function formsQuery(db: Knex, companyId: string): Knex.QueryBuilder {
  return db('job_forms as f')
    .join('jobs as j', 'j.id', 'f.job_id')
    .join('people as asker', 'asker.id', 'f.requested_by')
    .leftJoin('people as voider', 'voider.id', 'f.voided_by')
    .where('f.company_id', companyId)
    .select(
      'f.id',
      'f.job_id',
      'j.job_number',
      'f.template_id',
      'f.template_version',
      'f.title',
      'f.kind',
      db.raw(`${formStateSql('f')} as state`),
      'f.document_sha256',
      'f.expires_at',
      'f.requested_by',
      'asker.name as requested_by_name',
      'f.signed_at',
      'f.signed_document_id',
      'f.signed_pdf_sha256',
      'f.voided_at',
      'f.voided_by',
      'voider.name as voided_by_name',
      'f.void_reason',
      'f.created_at',
      db.raw('f.created_at::text as created_key'),
      db.raw(`coalesce((select json_agg(json_build_object('role', s.role, 'name', s.name, 'email', s.email,
                  'phone', s.phone, 'state', s.state, 'opened_at', s.opened_at, 'signed_at', s.signed_at,
                  'declined_at', s.declined_at, 'decline_reason', s.decline_reason)
                  order by array_position(array['customer', 'technician', 'office'], s.role))
                from job_form_signers s where s.company_id = f.company_id and s.form_id = f.id), '[]') as signers`),
    );
}

const iso = (value: Date | string | null): string | null => (value ? new Date(value).toISOString() : null);

export function toJobForm(row: FormRow): JobForm {
  return {
    form_id: row.id,
    job_id: row.job_id,
    job_number: Number(row.job_number),
    template_id: row.template_id,
    template_version: row.template_version,
    title: row.title,
    kind: row.kind,
    state: row.state,
    signers: row.signers.map((signer) => ({
      role: signer.role,
      name: signer.name,
      email: signer.email,
      phone: signer.phone,
      state: signer.state,
      opened_at: iso(signer.opened_at),
      signed_at: iso(signer.signed_at),
      declined_at: iso(signer.declined_at),
      decline_reason: signer.decline_reason,
    })),
    document_sha256: row.document_sha256,
    signed_at: iso(row.signed_at),
    signed_pdf:
      row.signed_document_id && row.signed_pdf_sha256
        ? { document_id: row.signed_document_id, sha256: row.signed_pdf_sha256 }
        : null,
    voided:
      row.voided_at && row.voided_by
        ? {
            at: row.voided_at.toISOString(),
            by: { id: row.voided_by, name: row.voided_by_name ?? '' },
            reason: row.void_reason ?? '',
          }
        : null,
    expires_at: row.expires_at.toISOString(),
    requested_by: { id: row.requested_by, name: row.requested_by_name },
    created_at: row.created_at.toISOString(),
  };
}

/** One form of the company as it is now; 404 for another company's or an unknown id. */
export async function loadJobForm(db: Knex, companyId: string, formId: string): Promise<JobForm> {
  const row = (await formsQuery(db, companyId).where('f.id', formId).first()) as FormRow | undefined;
  if (!row) throw notFound('form');
  return toJobForm(row);
}
