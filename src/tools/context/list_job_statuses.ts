import type { ReadHandler } from '../tool';

export const list_job_statuses: ReadHandler<'list_job_statuses'> = async ({ db, caller }) => {
  const rows = await db('statuses as s')
    .leftJoin('jobs as j', (join) => join.on('j.status_id', 's.id').andOnNull('j.cancelled_at'))
    .where('s.company_id', caller.companyId)
    .groupBy('s.id', 's.name', 's.position')
    .orderBy('s.position')
    .select('s.id', 's.name', 's.position', db.raw('count(j.id)::int as open_jobs'));
  return { data: rows, next_cursor: null };
};
