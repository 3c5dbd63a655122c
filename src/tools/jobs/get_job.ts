import type { ReadHandler } from '../tool';
import { loadJobDetail } from '../../domain/jobs/job-records';

export const get_job: ReadHandler<'get_job'> = async ({ db, caller }, { path }) =>
  loadJobDetail(db, caller, path.job_id);
