import type { Knex } from 'knex';
import { ApiError } from '../../platform/errors';
import type { ReadHandler } from '../tool';
import { findJobLog, noLog } from '../../domain/drying/drying-records';
import { loadEstimate, totalsOf, type EstimateRecord } from '../../domain/estimates/estimate-records';
import { resolveJob, type JobRow } from '../../domain/jobs/job-records';
import { exportExpiry, PACKET_ORDER, packetUrls, type PacketLink } from '../../domain/exports/export-links';
import { buildStatus, currentBuild } from '../../domain/exports/packet-builds';
import { confirmedToken, highFindings } from '../../domain/exports/finding-confirmation';
import { signedFormCount } from '../../domain/exports/packet-forms';
import type { Caller } from '../../platform/caller';

export const export_pdf: ReadHandler<'export_pdf'> = async (ctx, { path, query }) => {
  const { db, caller } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  const documents = PACKET_ORDER.filter((document) => query.documents.includes(document));
  const estimate = documents.includes('estimate')
    ? await packetEstimate(db, caller, job, query.estimate_id)
    : null;
  if (documents.includes('drying_log') && !(await findJobLog(db, caller, job.id))?.log) throw noLog(job);
  const signedForms = documents.includes('signed_forms')
    ? await signedFormCount(db, caller.companyId, job.id)
    : 0;
  if (documents.includes('signed_forms') && signedForms === 0)
    throw new ApiError(
      404,
      'not_found',
      `Job #${job.job_number} has no signed form yet (voided ones are not printed); request_signature asks for one.`,
    );
  const confirmation =
    estimate?.estimate.status === 'draft'
      ? confirmedToken(
          await highFindings(db, caller, job.id),
          query.confirm_findings ?? [],
          estimate.estimate.label,
        )
      : '';
  const expires = exportExpiry(ctx, query.expires_in);
  const link: PacketLink = {
    purpose: 'export_pdf',
    companyId: caller.companyId,
    keyId: caller.keyId,
    jobId: job.id,
    params: { d: documents.join(','), est: estimate?.estimate.id ?? '', cf: confirmation },
    expires,
  };
  const urls = await packetUrls(ctx, link);
  const totals = estimate ? totalsOf(estimate) : null;
  const build = await currentBuild(db, { caller, jobId: job.id, documents, estimateId: link.params.est });
  return {
    url: urls.page,
    pdf_url: urls.pdf,
    expires_at: new Date(expires * 1000).toISOString(),
    job_id: job.id,
    job_number: job.job_number,
    documents,
    estimate:
      estimate && totals
        ? {
            id: estimate.estimate.id,
            label: estimate.estimate.label,
            status: estimate.estimate.status,
            total_cents: totals.total_cents,
            currency: totals.currency,
          }
        : null,
    finalizes_estimate: estimate?.estimate.status === 'draft',
    photo_count: documents.includes('photos') ? job.photo_count : 0,
    signed_form_count: signedForms,
    build: build ? await buildStatus(ctx, link, job.job_number, build) : null,
  };
};

/** The estimate named (it must be this job's), else the job's newest. */
async function packetEstimate(
  db: Knex,
  caller: Caller,
  job: JobRow,
  estimateId: string | undefined,
): Promise<EstimateRecord> {
  const id =
    estimateId ??
    (
      await db('estimates')
        .where({ job_id: job.id })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .first('id')
    )?.id;
  if (!id)
    throw new ApiError(
      404,
      'not_found',
      `Job #${job.job_number} has no estimate yet; create_estimate writes one.`,
    );
  const record = await loadEstimate(db, caller, id);
  if (record.estimate.job_id !== job.id)
    throw new ApiError(404, 'not_found', `Estimate ${id} is not on job #${job.job_number}.`);
  return record;
}
