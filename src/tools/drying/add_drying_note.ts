import { lockedJob, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { jobRefOf } from '../../domain/jobs/job-records';
import { findArea, findLog, todayOf } from '../../domain/drying/drying-records';
import { dayOf, refuseFutureDay } from '../../domain/drying/days';
import { followPlan } from '../../domain/drying/estimate-follow';
import { addMissingAreas, DEFAULT_PLANNED_DAYS, startLog } from '../../domain/drying/log-start';
import { doneBy, onSiteTeammate } from '../../domain/people/on-site';

export const add_drying_note: WriteHandler<'add_drying_note'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const existing = await findLog(db, caller, job.id);
  // A date is checked against the start date before a log is started for it.
  const today = existing?.today ?? (await todayOf(db, caller));
  // A new log starts on the note's date when that is before today.
  const startDate =
    existing?.start_date ?? (body.date !== undefined && body.date < today ? body.date : today);
  const day = dayOf(body, startDate);
  if (day !== null) refuseFutureDay(body, day, startDate, today);
  const onSite = await onSiteTeammate(db, caller, body.by);
  const areaNames = body.area ? [body.area.trim()] : [];
  const started = existing
    ? null
    : await startLog(ctx, job, {
        startDate,
        plannedDays: Math.max(DEFAULT_PLANNED_DAYS, day ?? 0),
        areaNames,
        startedBy: 'add_drying_note',
      });
  const log = existing ?? started!.log;
  const areas = [...log.areas];
  const added = await addMissingAreas(ctx, log, areas, areaNames);
  if (started || added.length) await followPlan(ctx, log, areas, started?.estimateCreated ?? false);
  const area = body.area ? findArea(areas, body.area)! : null;

  const note = await ctx.rows.insert<{ id: string; created_at: Date }>('drying_notes', {
    id: newId('dnote'),
    log_id: log.id,
    area_id: area?.id ?? null,
    day,
    text: body.text,
    author_id: caller.personId,
    on_site_by: onSite?.id ?? null,
  });
  // A log this call started is what undo names: undo takes the log back, and this with it.
  ctx.changes.add(
    {
      kind: 'notes',
      data: {
        action: 'drying.note_added',
        log_id: log.id,
        note_id: note.id,
        area: area?.name ?? null,
        day,
        on_site_by: onSite,
      },
      summary: `Drying note on #${job.job_number}${area ? ` (${area.name})` : ''} ${doneBy(caller, onSite)}`,
      job: jobRefOf(job),
      recordId: note.id,
    },
    { undo: !started },
  );
  const credits = started?.credits ?? { used: 0, remaining: log.credits };
  return {
    log_id: log.id,
    log_started: started !== null,
    note: {
      id: note.id,
      text: body.text,
      area: area?.name ?? null,
      day,
      created_by: { id: caller.personId, name: caller.personName },
      on_site_by: onSite,
      created_at: note.created_at.toISOString(),
    },
    credits,
  };
};
