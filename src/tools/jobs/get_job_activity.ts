import type { ReadHandler } from '../tool';
import { entryAnswer, type StoredEntry } from '../../platform/changes';
import { decodeCursor, encodeCursor, pageOf, SAFE_MAX } from '../../platform/pagination';
import { findTeammate } from '../../domain/company/lookups';
import { loadNotes } from '../../domain/notes/note-records';
import { resolveJob } from '../../domain/jobs/job-records';

const DEFAULT_LIMIT = 25;

/** A job's entries are all made by a person (only entries of no job, such as a disabled webhook, have none). */
interface EntryRow extends StoredEntry {
  person_id: string;
  person_name: string;
  record_id: string | null;
}

/** The job's part of the change feed, newest first; note entries show the note as it is now. */
export const get_job_activity: ReadHandler<'get_job_activity'> = async ({ db, caller }, { path, query }) => {
  const job = await resolveJob(db, caller, path.job_id);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const entries = db('change_entries as e')
    .join('people as p', 'p.id', 'e.person_id')
    .where({ 'e.company_id': caller.companyId, 'e.job_id': job.id });
  if (query.kind) entries.where('e.kind', query.kind);
  if (query.person) entries.where('e.person_id', (await findTeammate(db, caller.companyId, query.person)).id);
  if (query.cursor) entries.where('e.seq', '<', decodeCursor(query.cursor, { before: SAFE_MAX }).before);
  const rows = (await entries
    .orderBy('e.seq', 'desc')
    .limit(limit + 1)
    .select('e.*', 'p.name as person_name')) as EntryRow[];
  const page = pageOf(
    rows,
    limit,
    (row) => row,
    (row) => encodeCursor({ before: row.seq }),
  );

  const noteIds = page.data.filter((e) => e.kind === 'notes' && e.record_id).map((e) => e.record_id!);
  const notes = await loadNotes(db, noteIds);
  return {
    data: page.data.map((e) => ({
      ...entryAnswer(e, caller.timezone),
      person: { id: e.person_id, name: e.person_name },
      note: (e.kind === 'notes' && e.record_id && notes.get(e.record_id)) || null,
    })),
    next_cursor: page.next_cursor,
  };
};
