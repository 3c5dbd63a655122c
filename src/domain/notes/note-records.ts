/** Notes as the spec shows them: current text, author and the earlier texts, oldest first. */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { notFound } from '../../platform/errors';

export type Note = components['schemas']['Note'];

export interface NoteRow {
  id: string;
  job_id: string;
  text: string;
  author_id: string;
  created_at: Date;
  updated_at: Date;
}

/** A note of the given job, else 404 (a note of another job or company is not found either). */
export async function findNote(db: Knex, companyId: string, jobId: string, noteId: string): Promise<NoteRow> {
  const note = await db('notes').where({ id: noteId, job_id: jobId, company_id: companyId }).first();
  if (!note) throw notFound('note on this job');
  return note as NoteRow;
}

/** The notes with these ids, with authors and history, by id (retracted ones are absent). */
export async function loadNotes(db: Knex, noteIds: string[]): Promise<Map<string, Note>> {
  if (noteIds.length === 0) return new Map();
  const notes = await db('notes as n')
    .join('people as p', 'p.id', 'n.author_id')
    .whereIn('n.id', noteIds)
    .select('n.*', 'p.name as author_name');
  const versions = await db('note_versions as v')
    .join('people as p', 'p.id', 'v.replaced_by')
    .whereIn('v.note_id', noteIds)
    .orderBy([{ column: 'v.replaced_at' }, { column: 'v.id' }])
    .select('v.note_id', 'v.text', 'v.replaced_at', 'p.id as person_id', 'p.name as person_name');
  return new Map(
    notes.map((n) => [
      n.id,
      {
        id: n.id,
        job_id: n.job_id,
        text: n.text,
        author: { id: n.author_id, name: n.author_name },
        created_at: n.created_at.toISOString(),
        updated_at: n.updated_at.toISOString(),
        history: versions
          .filter((v) => v.note_id === n.id)
          .map((v) => ({
            text: v.text,
            replaced_at: v.replaced_at.toISOString(),
            replaced_by: { id: v.person_id, name: v.person_name },
          })),
      },
    ]),
  );
}

/** A note just written, as the spec shows it: from the row its insert returned, by the caller. */
export function newNote(row: NoteRow, author: { id: string; name: string }): Note {
  return {
    id: row.id,
    job_id: row.job_id,
    text: row.text,
    author,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    history: [],
  };
}

export async function loadNote(db: Knex, noteId: string): Promise<Note> {
  const note = (await loadNotes(db, [noteId])).get(noteId);
  if (!note) throw notFound('note');
  return note;
}
