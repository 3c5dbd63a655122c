import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, pageOf } from '../../platform/pagination';
import { resolveJob } from '../../domain/jobs/job-records';
import { jobRooms, roomNamed, whereRoom } from '../../domain/media/photo-records';
import { DOCUMENT_FORMATS } from '../../domain/documents/document-kinds';
import { documentsQuery, toDocument, type DocumentRow } from '../../domain/documents/document-records';

const DEFAULT_LIMIT = 25;

export const list_job_documents: ReadHandler<'list_job_documents'> = async (ctx, { path, query }) => {
  const { db, caller } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const documents = documentsQuery(db, caller.companyId).where('d.job_id', job.id);
  if (query.room !== undefined)
    whereRoom(documents, 'd.room', roomNamed(query.room, await jobRooms(db, job.id)));
  if (query.kind !== undefined) {
    const kind = query.kind;
    documents.whereIn(
      'f.format',
      Object.entries(DOCUMENT_FORMATS)
        .filter(([, format]) => format.kind === kind)
        .map(([name]) => name),
    );
  }
  if (query.cursor) {
    const after = decodeCursor(query.cursor, { at: 'text', id: 'text' });
    documents.whereRaw('(d.created_at, d.id) < (?::timestamptz, ?)', [after.at, after.id]);
  }
  const rows = (await documents
    .orderBy([
      { column: 'd.created_at', order: 'desc' },
      { column: 'd.id', order: 'desc' },
    ])
    .limit(limit + 1)) as DocumentRow[];
  const page = pageOf(
    rows,
    limit,
    (row) => row,
    (row) => encodeCursor({ at: row.created_key, id: row.id }),
  );
  const [{ total }] = (await db('documents').where({ job_id: job.id }).count({ total: '*' })) as {
    total: number | string;
  }[];
  return {
    job_id: job.id,
    data: await Promise.all(page.data.map((row) => toDocument(ctx, caller, row))),
    next_cursor: page.next_cursor,
    total: Number(total),
  };
};
