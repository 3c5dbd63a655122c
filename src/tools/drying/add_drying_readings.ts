/**
 * add_drying_readings: checks every row before anything is saved, starts the log when the job has
 * none, lengthens plans for days read past them and saves the readings; the rules are in
 * domain/drying/reading-rows.ts, the log's steps in domain/drying/add-readings.ts.
 */
import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import { findLogWithGoals, plannedDaysOf, todayOf } from '../../domain/drying/drying-records';
import { airConditions, DryGoals, elevationOf, materialStatuses } from '../../domain/drying/drying-status';
import { doneBy, onSiteTeammate } from '../../domain/people/on-site';
import { followPlan } from '../../domain/drying/estimate-follow';
import { addMissingAreas } from '../../domain/drying/log-start';
import {
  areaNamesOf,
  checkReadings,
  earliestDate,
  materialsOf,
  refuseBuildingRowsInNewAreas,
  refuseFutureRows,
  rowsOf,
} from '../../domain/drying/reading-rows';
import { extendPlans, logForReadings, readingRowsOf, unitsOf } from '../../domain/drying/add-readings';

export const add_drying_readings: WriteHandler<'add_drying_readings'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const rows = rowsOf(body);
  const existing = await findLogWithGoals(db, caller, job.id, materialsOf(rows));
  // Checked once, against the log's start date or, for a log this call starts, today.
  const today = existing?.today ?? (await todayOf(db, caller));
  const startDate = existing?.start_date ?? earliestDate(rows, today);
  const readings = checkReadings(rows, startDate);
  refuseFutureRows(rows, startDate, today);
  refuseBuildingRowsInNewAreas(rows, existing?.areas.map((area) => area.name) ?? []);
  const onSite = await onSiteTeammate(db, caller, body.by);
  const { log, started } = await logForReadings(ctx, job, existing, startDate, readings);
  const plannedBefore = started ? null : log.planned_days;
  const areas = [...log.areas];
  const areasAdded = await addMissingAreas(ctx, log, areas, areaNamesOf(readings));
  const areaDaysBefore = areas.map((a) => plannedDaysOf(a, log)).join();
  await extendPlans(ctx, log, areas, readings);
  const unitIds = await unitsOf(db, log, readings);

  const saved = readingRowsOf(
    readings,
    { log, areas, unitIds },
    { recordedBy: caller.personId, onSiteBy: onSite?.id ?? null },
  );
  // Nothing below reads the readings back: they are written with the write's last statement.
  ctx.rows.insertAtCommit('drying_readings', saved);

  const planChanged =
    started !== null ||
    areasAdded.length > 0 ||
    areaDaysBefore !== areas.map((a) => plannedDaysOf(a, log)).join();
  const estimate = planChanged ? await followPlan(ctx, log, areas, started?.estimateCreated ?? false) : null;
  const areaName = (id: string | null) => areas.find((a) => a.id === id)?.name ?? null;
  // Goals only for the materials read now: the log's references, then this request's, by day
  // (a stable sort keeps each day's in the order they were recorded).
  const goalReadings = [...(existing?.goalReadings ?? []), ...saved].sort((a, b) => a.day - b.day);
  const days = [...new Set(readings.map((r) => r.day))].sort((a, b) => a - b);
  const readAreas = [
    ...new Set(saved.map((r) => areaName(r.area_id)).filter((name): name is string => name !== null)),
  ];

  // A log this call started is what undo names: undo takes the log back, and this with it.
  ctx.changes.add(
    {
      kind: 'visits',
      data: {
        action: 'drying.readings_added',
        log_id: log.id,
        count: saved.length,
        days,
        areas: readAreas,
        areas_added: areasAdded.map((a) => a.name),
        planned_days:
          plannedBefore !== null && plannedBefore !== log.planned_days
            ? { before: plannedBefore, after: log.planned_days }
            : null,
        on_site_by: onSite,
      },
      summary: `${saved.length} drying reading${saved.length === 1 ? '' : 's'} on #${job.job_number} (day ${days.join(', ')}${readAreas.length ? `; ${readAreas.join(', ')}` : ''}) ${doneBy(caller, onSite)}`,
      job: jobRefOf(job),
      recordId: log.id,
    },
    { undo: !started },
  );
  return {
    log_id: log.id,
    log_started: started !== null,
    added: saved.length,
    days,
    areas_added: areasAdded.map((a) => a.name),
    planned_days: { before: plannedBefore, after: log.planned_days },
    conditions: airConditions(saved, areaName, elevationOf({ log }).pressureKpa),
    materials: materialStatuses(saved, new DryGoals(goalReadings), areaName),
    estimate,
    credits: started?.credits ?? { used: 0, remaining: log.credits },
  };
};
