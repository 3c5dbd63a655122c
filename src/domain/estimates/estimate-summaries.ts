import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { totalsOf, type EstimateRecord } from './estimate-records';

/** Each estimate of a job with its label and total, oldest first (for `get_job`). */
export async function estimateSummaries(
  db: Knex,
  jobId: string,
): Promise<components['schemas']['EstimateSummary'][]> {
  const estimates = await db('estimates').where({ job_id: jobId }).orderBy('created_at');
  if (estimates.length === 0) return [];
  const ids = estimates.map((e) => e.id);
  const rooms = await db('estimate_rooms').whereIn('estimate_id', ids);
  const lines = await db('estimate_lines').whereIn('estimate_id', ids);
  return estimates.map((estimate) => {
    const record = {
      estimate,
      rooms: rooms.filter((r) => r.estimate_id === estimate.id),
      lines: lines.filter((l) => l.estimate_id === estimate.id),
    } as EstimateRecord;
    const totals = totalsOf(record);
    return {
      id: estimate.id,
      label: estimate.label,
      total_cents: totals.total_cents,
      currency: totals.currency,
    };
  });
}
