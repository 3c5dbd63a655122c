/**
 * The signed forms a packet prints (`signed_forms`): each signed form of the job that is not
 * voided, oldest signature first, as the data its own signed PDF was laid out from
 * (forms/signed-pdf.ts): the frozen text, each signer's values, signature, typed name and the
 * facts of the audit page. Read as stored, never from the template or the job as they are now.
 */
import type { Knex } from 'knex';
import type { Caller } from '../../platform/caller';
import type { FormPdfData } from '../forms/form-pdf-document';
import { signersOf, type FormRow } from '../forms/form-records';
import { signedFormPdfData } from '../forms/signed-pdf';

/** The job's signed forms (voided ones are not), oldest signature first. */
function signedForms(db: Knex, companyId: string, jobId: string): Knex.QueryBuilder {
  return db('job_forms as f').where({ 'f.company_id': companyId, 'f.job_id': jobId, 'f.state': 'signed' });
}

/** How many signed forms a packet of the job prints now. */
export async function signedFormCount(db: Knex, companyId: string, jobId: string): Promise<number> {
  const [{ count }] = (await signedForms(db, companyId, jobId).count({ count: '*' })) as {
    count: number | string;
  }[];
  return Number(count);
}

/** Each signed form of the job as its own PDF printed it (forms/signed-pdf.ts). */
export async function packetForms(db: Knex, caller: Caller, jobId: string): Promise<FormPdfData[]> {
  const forms = (await signedForms(db, caller.companyId, jobId)
    .join('jobs as j', 'j.id', 'f.job_id')
    .orderBy([
      { column: 'f.signed_at', order: 'asc' },
      { column: 'f.id', order: 'asc' },
    ])
    .select('f.*', 'j.job_number')) as (FormRow & { job_number: number })[];
  return Promise.all(
    forms.map(async (form) =>
      signedFormPdfData(db, form, await signersOf(db, caller.companyId, form.id), {
        companyName: caller.companyName,
        jobNumber: Number(form.job_number),
      }),
    ),
  );
}
