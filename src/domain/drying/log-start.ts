/**
 * Starting a job's drying log, by create_drying_log or by the first reading or note. The log is
 * tied to the job's first estimate; a job with none gets one, which uses an estimate credit.
 */
import { useEstimateCredit } from '../../platform/credits';
import type { WriteCallContext } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { insertEstimate } from '../estimates/new-estimate';
import type { JobRow } from '../jobs/job-records';
import { findArea, findLog, todayOf, type AreaRow, type LogRow } from './drying-records';

export const DEFAULT_PLANNED_DAYS = 3;

type Starter = 'create_drying_log' | 'add_drying_readings' | 'add_drying_note';

export interface StartedLog {
  log: LogRow;
  credits: { used: number; remaining: number };
  estimateCreated: boolean;
}

/** Credits as they stand, for a call that used none. */
async function creditsLeft(ctx: WriteCallContext): Promise<{ used: number; remaining: number }> {
  const company = await ctx.db('companies').where({ id: ctx.caller.companyId }).first('credits');
  return { used: 0, remaining: company.credits };
}

export async function startLog(
  ctx: WriteCallContext,
  job: JobRow,
  plan: {
    startDate?: string;
    plannedDays: number;
    elevationFt?: number;
    areaNames: string[];
    startedBy: Starter;
  },
): Promise<StartedLog> {
  const first = await ctx
    .db('estimates')
    .where({ job_id: job.id })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .first('id');
  let credits = await creditsLeft(ctx);
  let estimateId: string | null = first?.id ?? null;
  if (!estimateId) {
    credits = await useEstimateCredit(ctx);
    estimateId = (await insertEstimate(ctx, job, { drying_days: plan.plannedDays })).estimate.id;
  }
  const id = newId('dry');
  await ctx.rows.insert('drying_logs', {
    id,
    job_id: job.id,
    start_date: plan.startDate ?? (await todayOf(ctx.db, ctx.caller)),
    planned_days: plan.plannedDays,
    estimate_id: estimateId,
    elevation_ft: plan.elevationFt ?? null,
  });
  const log = (await findLog(ctx.db, ctx.caller, job.id))!;
  ctx.changes.add(
    {
      kind: 'schedule',
      data: {
        action: 'drying.log_started',
        log_id: id,
        start_date: log.start_date,
        planned_days: log.planned_days,
        areas: plan.areaNames,
        started_by: plan.startedBy,
        estimate_id: estimateId,
        credits_used: credits.used,
      },
      summary: `Drying log started on #${job.job_number} (day 1 ${log.start_date}, ${log.planned_days} days planned)`,
      job: { id: job.id, job_number: job.job_number },
      recordId: id,
    },
    { undo: true },
  );
  return { log, credits, estimateCreated: !first };
}

/** Adds the areas the log lacks (names any case; the first spelling is kept) and returns them. */
export async function addMissingAreas(
  ctx: WriteCallContext,
  log: LogRow,
  areas: AreaRow[],
  names: string[],
  plannedDays: (name: string) => number | null = () => null,
): Promise<AreaRow[]> {
  const added: AreaRow[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (findArea([...areas, ...added], name)) continue;
    const position = Math.max(0, ...areas.map((a) => a.position), ...added.map((a) => a.position)) + 1;
    added.push(
      await ctx.rows.insert<AreaRow>('drying_areas', {
        id: newId('area'),
        log_id: log.id,
        name,
        planned_days: plannedDays(name),
        position,
      }),
    );
  }
  areas.push(...added);
  return added;
}
