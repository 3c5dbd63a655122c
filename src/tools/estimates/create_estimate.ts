import type { WriteHandler } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { useEstimateCredit } from '../../platform/credits';
import { resolveJob } from '../jobs/job-records';
import { regionFor } from '../price-list/catalog';
import { loadEstimate, toEstimate } from './estimate-records';
import { estimateData } from './estimate-changes';
import { upsertRooms } from './rooms';
import { addLines } from './line-items';

export const create_estimate: WriteHandler<'create_estimate'> = async (ctx, { path, body }) => {
  const { db, caller } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  const credits = await useEstimateCredit(db, caller.companyId);
  const company = await db('companies').where({ id: caller.companyId }).first('pricing_region', 'overhead_rate_bp', 'profit_rate_bp', 'tax_rate_bp');
  const region = regionFor(job.region, company.pricing_region);
  const count = await db('estimates').where({ job_id: job.id }).count<{ count: number }[]>('id as count');

  const estimate = await ctx.rows.insert('estimates', {
    id: newId('est'),
    job_id: job.id,
    label: body.label ?? `Estimate ${Number(count[0].count) + 1}`,
    scope_summary: body.scope_summary ?? null,
    drying_days: body.drying_days ?? null,
    region_code: region.code,
    region_factor_x100: region.factorX100,
    overhead_rate_bp: company.overhead_rate_bp,
    profit_rate_bp: company.profit_rate_bp,
    tax_rate_bp: company.tax_rate_bp,
    created_by: caller.personId,
  });
  const record = await loadEstimate(db, caller, estimate.id);
  await upsertRooms(ctx, record, body.rooms ?? []);
  const { rejected } = await addLines(ctx, record, body.line_items ?? []);

  ctx.changes.add({
    kind: 'estimates',
    data: estimateData('estimate.created', record),
    summary: `Created ${record.estimate.label} on #${job.job_number}`,
    job: { id: job.id, job_number: job.job_number },
    recordId: estimate.id,
  });
  return { estimate: toEstimate(record), credits, rejected_lines: rejected };
};
