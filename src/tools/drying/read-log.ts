import type { Knex } from 'knex';
import { loadRecord, type JobRef, type LogRow } from './drying-records';
import { billedLines, toDryingLog, type DryingLog, type LogView } from './drying-status';

/** The log as get_drying_log answers it, read afresh (inside a write, as that write left it). */
export async function readLog(db: Knex, job: JobRef, log: LogRow, view?: LogView): Promise<DryingLog> {
  const [record, billed] = await Promise.all([loadRecord(db, job, log, view?.detail === 'readings'), billedLines(db, job.id)]);
  return toDryingLog(record, billed, view);
}
