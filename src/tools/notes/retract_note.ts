import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import { findNote } from '../../domain/notes/note-records';

/** Removes the note and its corrections; only the fact of the retraction stays in the feed. */
export const retract_note: WriteHandler<'retract_note'> = async (ctx, { path, query }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const note = await findNote(db, caller.companyId, job.id, path.note_id);
  const versionIds: string[] = await db('note_versions').where({ note_id: note.id }).pluck('id');
  for (const id of versionIds) await ctx.rows.remove('note_versions', id);
  await ctx.rows.remove('notes', note.id);
  const { reason } = query;
  const summary = `Note on #${job.job_number} retracted by ${caller.personName}${reason ? `: ${reason}` : ''}`;
  ctx.changes.add(
    {
      kind: 'notes',
      data: { action: 'note.retracted', note_id: note.id, ...(reason ? { reason } : {}) },
      summary,
      job: jobRefOf(job),
      recordId: note.id,
    },
    { undo: true },
  );
  return { retracted: { id: note.id, job_id: job.id, corrections: versionIds.length } };
};
