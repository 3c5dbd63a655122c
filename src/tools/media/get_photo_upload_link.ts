import type { WriteHandler } from '../../platform/handler';
import { LinkSigner } from '../../platform/links';
import { resolveJob } from '../jobs/job-records';
import { jobRooms, roomNamed } from './photo-records';
import { uploadLinkQuery, type UploadLinkFacts } from './upload-page';

export const get_photo_upload_link: WriteHandler<'get_photo_upload_link'> = async (ctx, { path, query }) => {
  const { db, caller, config } = ctx;
  const job = await resolveJob(db, caller, path.job_id);
  const room = query.room === undefined ? null : roomNamed(query.room, await jobRooms(db, job.id));
  const expires = LinkSigner.expiryIn(query.expires_in ?? config.links.uploadSeconds, false);
  const facts: UploadLinkFacts = { purpose: 'upload', companyId: caller.companyId, object: job.id, extra: `${caller.keyId}\n${room ?? ''}`, expires, room };
  const signature = await ctx.links.sign(facts);
  return {
    url: `${config.publicUrl}/upload/${job.id}?${uploadLinkQuery(facts, caller.keyId, signature)}`,
    expires_at: new Date(expires * 1000).toISOString(),
    job_id: job.id,
    job_number: job.job_number,
    room,
  };
};
