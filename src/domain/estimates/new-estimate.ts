import type { WriteCallContext } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { regionFor } from '../price-list/catalog';
import { loadEstimate, type EstimateRecord } from './estimate-records';

/**
 * Saves a new, empty estimate on a job: priced for the job's region (else the company's), with
 * the company's rates of today. The caller has taken the credit.
 */
export async function insertEstimate(
  ctx: WriteCallContext,
  job: { id: string; region: string | null },
  fields: { label?: string; scope_summary?: string; drying_days?: number },
): Promise<EstimateRecord> {
  const { db, caller } = ctx;
  const company = await db('companies')
    .where({ id: caller.companyId })
    .first('pricing_region', 'overhead_rate_bp', 'profit_rate_bp', 'tax_rate_bp');
  const region = regionFor(job.region, company.pricing_region);
  const count = await db('estimates').where({ job_id: job.id }).count<{ count: number }[]>('id as count');
  const estimate = await ctx.rows.insert('estimates', {
    id: newId('est'),
    job_id: job.id,
    label: fields.label ?? `Estimate ${Number(count[0].count) + 1}`,
    scope_summary: fields.scope_summary ?? null,
    drying_days: fields.drying_days ?? null,
    region_code: region.code,
    region_factor_x100: region.factorX100,
    overhead_rate_bp: company.overhead_rate_bp,
    profit_rate_bp: company.profit_rate_bp,
    tax_rate_bp: company.tax_rate_bp,
    created_by: caller.personId,
  });
  return loadEstimate(db, caller, estimate.id);
}
