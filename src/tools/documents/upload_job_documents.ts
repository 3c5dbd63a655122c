import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import { inPartOrder, planUpload, undoableUpload, uploadCounts } from '../../domain/media/upload-records';
import {
  documentsQuery,
  toDocument,
  type Document,
  type DocumentRow,
} from '../../domain/documents/document-records';

/**
 * Saves the documents the intake prepared (their files are stored already). A file the job has
 * (same content) is answered as that document; the rest are added to the Files tab.
 */
export const upload_job_documents: WriteHandler<'upload_job_documents'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const plan = await planUpload(ctx, 'documents', 'doc', job.id, body.documents, body.room);
  await ctx.rows.insertMany(
    'documents',
    plan.added.map(({ id, file, room }) => ({
      id,
      job_id: job.id,
      sha256: file.sha256,
      room,
      name: file.name ?? file.file_name,
      uploaded_by: caller.personId,
      uploaded_via: body.via,
    })),
  );
  const rows = (await documentsQuery(db, caller.companyId).whereIn('d.id', [
    ...new Set(plan.idOfPart),
  ])) as DocumentRow[];
  const documents = new Map<string, Document>(
    await Promise.all(rows.map(async (row) => [row.id, await toDocument(ctx, caller, row)] as const)),
  );
  if (plan.added.length > 0) {
    const added = plan.added.map((a) => documents.get(a.id)!);
    ctx.changes.add(
      {
        kind: 'files',
        data: {
          action: 'documents.uploaded',
          document_ids: added.map((d) => d.id),
          count: added.length,
          names: added.map((d) => d.name),
          kinds: added.map((d) => d.kind),
          rooms_added: plan.roomsAdded,
          via: body.via,
        },
        summary: `${added.length === 1 ? `Document ${added[0].name ?? added[0].kind}` : `${added.length} documents`} added to #${job.job_number} by ${caller.personName}`,
        job: jobRefOf(job),
        recordId: added[0].id,
      },
      { undo: undoableUpload(ctx, body.via) },
    );
  }
  return {
    job_id: job.id,
    documents: inPartOrder(plan, documents),
    ...uploadCounts(plan),
  };
};
