import type { ReadHandler } from '../../platform/handler';
import { resolveJob, toDetail } from './job-records';

export const get_job: ReadHandler<'get_job'> = async ({ db, caller }, { path }) => toDetail(db, await resolveJob(db, caller, path.job_id));
