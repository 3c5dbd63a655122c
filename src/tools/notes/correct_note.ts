import { lockedJob, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { jobRefOf } from '../../domain/jobs/job-records';
import { findNote, loadNote } from '../../domain/notes/note-records';

/** The earlier text goes to the note's history; the same text again changes nothing. */
export const correct_note: WriteHandler<'correct_note'> = async (ctx, { path, body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const note = await findNote(db, caller.companyId, job.id, path.note_id);
  if (note.text === body.text) return loadNote(db, note.id);

  // The clock, not the transaction's start: a correction that waited for another one's lock
  // started first, and the history is read in the order the corrections were made.
  const replacedAt = db.raw('clock_timestamp()');
  await ctx.rows.insert('note_versions', {
    id: newId('nv'),
    note_id: note.id,
    text: note.text,
    replaced_by: caller.personId,
    replaced_at: replacedAt,
  });
  await ctx.rows.update('notes', note.id, { text: body.text });
  ctx.changes.add(
    {
      kind: 'notes',
      data: { action: 'note.corrected', note_id: note.id },
      summary: `Note on #${job.job_number} corrected by ${caller.personName}`,
      job: jobRefOf(job),
      recordId: note.id,
    },
    { undo: true },
  );
  return loadNote(db, note.id);
};
