import { lockedJob, type WriteHandler } from '../tool';
import { LinkSigner } from '../../platform/links';
import { personLinkQuery } from '../../platform/person-links';
import { jobRooms, roomNamed } from '../../domain/media/photo-records';
import { UPLOAD_LINK_ADDED, UPLOAD_LINK_PARAMS } from '../../domain/media/upload-links';
import { onSiteTeammate } from '../../domain/people/on-site';

export const get_photo_upload_link: WriteHandler<'get_photo_upload_link'> = async (ctx, { query }) => {
  const { db, caller, config } = ctx;
  const job = lockedJob(ctx);
  const room = query.room === undefined ? null : roomNamed(query.room, await jobRooms(db, job.id));
  const teammate = await onSiteTeammate(db, caller, query.for);
  const expires = LinkSigner.expiryIn(query.expires_in ?? config.links.uploadSeconds, false);
  const link = {
    purpose: 'upload' as const,
    companyId: caller.companyId,
    keyId: caller.keyId,
    jobId: job.id,
    params: { r: room ?? '', b: teammate?.id ?? '' },
    expires,
  };
  return {
    url: `${config.publicUrl}/upload/${job.id}?${await personLinkQuery(ctx.links, link, UPLOAD_LINK_PARAMS, UPLOAD_LINK_ADDED)}`,
    expires_at: new Date(expires * 1000).toISOString(),
    job_id: job.id,
    job_number: job.job_number,
    room,
    for: teammate,
  };
};
