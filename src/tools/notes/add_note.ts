import { lockedJob, type WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import { jobRefOf } from '../../domain/jobs/job-records';
import { queueNewNoteMessage } from '../../domain/chat/outbox';
import { newNote, type NoteRow } from '../../domain/notes/note-records';

export const add_note: WriteHandler<'add_note'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const note = await ctx.rows.insert<NoteRow>('notes', {
    id: newId('note'),
    job_id: job.id,
    author_id: caller.personId,
    text: body.text,
  });
  await queueNewNoteMessage(db, ctx.queue, caller, job, body.text);
  ctx.changes.add(
    {
      kind: 'notes',
      data: { action: 'note.added', note_id: note.id },
      summary: `Note on #${job.job_number} by ${caller.personName}`,
      job: jobRefOf(job),
      recordId: note.id,
    },
    { undo: true },
  );
  return newNote(note, { id: caller.personId, name: caller.personName });
};
