import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, pageOf } from '../../platform/pagination';
import { resolveJob } from '../../domain/jobs/job-records';
import { formStateSql, formsQuery, toJobForm, type FormRow } from '../../domain/forms/form-listing';

const DEFAULT_LIMIT = 25;

/** The job's forms newest first, read along the forms index of the job (company, job, created, id). */
export const list_job_forms: ReadHandler<'list_job_forms'> = async ({ db, caller }, { path, query }) => {
  const job = await resolveJob(db, caller, path.job_id);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const forms = formsQuery(db, caller.companyId).where('f.job_id', job.id);
  if (query.state) forms.whereRaw(`${formStateSql('f')} = ?`, [query.state]);
  if (query.cursor) {
    const after = decodeCursor(query.cursor, { at: 'text', id: 'text' });
    forms.whereRaw('(f.created_at, f.id) < (?::timestamptz, ?)', [after.at, after.id]);
  }
  const rows = (await forms
    .orderBy([
      { column: 'f.created_at', order: 'desc' },
      { column: 'f.id', order: 'desc' },
    ])
    .limit(limit + 1)) as FormRow[];
  return pageOf(rows, limit, toJobForm, (row) => encodeCursor({ at: row.created_key, id: row.id }));
};
