/**
 * The key-less routes of the export links: a packet's download page (GET, changes nothing); the
 * packet's Download (POST only, so that a link preview or a prefetch never starts it), which
 * queues its build; the build's status; the built file (GET, with its length and ranges), whose
 * delivery makes the estimate final (once the claim's high findings are confirmed); and the photo ZIP (GET). Each acts for the person of the
 * key that made the link and is charged to that key's rate limit.
 */
import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import { ApiError, invalidRequest } from '../../platform/errors';
import { readableMoment } from '../../platform/local-time';
import { formatMoney } from '../../platform/money';
import { holderOfLink, personLinkOf, type LinkHolder } from '../../platform/person-links';
import type { RateLimiter } from '../../platform/rate-limit';
import { charge } from '../shared/credentials';
import { loadEstimate, totalsOf } from '../../domain/estimates/estimate-records';
import { linkErrors } from '../files/media-routes';
import { roomNamed } from '../../domain/media/photo-records';
import {
  PACKET_LINK_ADDED,
  PACKET_LINK_PARAMS,
  packetDocuments,
  packetFileName,
  ZIP_LINK_PARAMS,
  type PacketLink,
} from '../../domain/exports/export-links';
import {
  buildStatus,
  findBuild,
  isOutdated,
  recordDelivery,
  requestBuild,
  type PacketOrder,
} from '../../domain/exports/packet-builds';
import { sendStoredFile } from '../files/send-stored-file';
import type { ByteRange } from '../../infrastructure/files/store';
import { packetPage } from './export-page';
import { pageHeaders, refuseCrossSite } from './page-security';
import { finalizeEstimate } from '../../domain/estimates/finalize-estimate';
import { streamPhotoZip } from '../../domain/exports/photo-zip';
import { checkClaimReadiness } from '../../domain/drying/claim-readiness';
import {
  assertConfirmed,
  confirmedToken,
  highFindings,
  highOf,
} from '../../domain/exports/finding-confirmation';
import type { Deps } from '../../domain/services';
import { signedFormCount } from '../../domain/exports/packet-forms';

export function exportRoutes(deps: Deps, limiter: RateLimiter): Router {
  const router = express.Router();
  const signer = { config: deps.config, links: deps.media.links };

  router.get('/exports/:job_id/packet', async (req: Request, res: Response) => {
    const { link, holder } = await packetLinkOf(deps, req);
    const documents = packetDocuments(link);
    const [estimate, readiness, signedForms] = await Promise.all([
      link.params.est ? loadEstimate(deps.db, holder.caller, link.params.est) : null,
      checkClaimReadiness(deps.db, holder.caller, holder.job.id),
      documents.includes('signed_forms')
        ? signedFormCount(deps.db, holder.caller.companyId, holder.job.id)
        : 0,
    ]);
    const totals = estimate ? totalsOf(estimate) : null;
    const page = packetPage({
      jobNumber: holder.job.job_number,
      jobTitle: holder.job.title,
      documents,
      estimate:
        estimate && totals
          ? {
              label: estimate.estimate.label,
              total: formatMoney(totals.total_cents, totals.currency),
              final: estimate.estimate.status === 'final',
            }
          : null,
      photoCount: Number(holder.job.photo_count),
      signedFormCount: signedForms,
      expires: readableMoment(new Date(link.expires * 1000), holder.caller.timezone),
      fileName: packetFileName(holder.job.job_number),
      readiness,
      toConfirm: estimate?.estimate.status === 'draft' ? highOf(readiness) : [],
    });
    res.type('html').set(pageHeaders(page.nonce)).send(page.html);
  });

  router.get('/exports/:job_id/packet.pdf', () => {
    throw new ApiError(
      405,
      'method_not_allowed',
      "A packet is built by POST (the download page does it), so that opening or previewing a link never starts one; its status then gives the file's address.",
      { headers: { Allow: 'POST' } },
    );
  });

  // Download: queues the packet's build (or finds the one already made) and answers its status.
  router.post('/exports/:job_id/packet.pdf', refuseCrossSite, async (req: Request, res: Response) => {
    const { link: asked, holder } = await packetLinkOf(deps, req);
    await charge(res, limiter, 'work', holder.caller.keyId, 1);
    const link = await confirmedLink(deps, asked, holder, req.query.confirm_findings);
    const build = await requestBuild(deps, orderOf(link, holder));
    const status = await buildStatus(signer, link, holder.job.job_number, build);
    res.status(202).set({ Location: status.status_url, 'Cache-Control': 'no-store' }).json(status);
  });

  router.get('/exports/:job_id/packet/builds/:build_id', async (req: Request, res: Response) => {
    const { link, holder } = await packetLinkOf(deps, req);
    const order = orderOf(link, holder);
    let build = await findBuild(deps.db, order, String(req.params.build_id));
    // The job changed since: the packet is built again, and the answer is that build.
    if (build.state !== 'failed' && (await isOutdated(deps.db, order, build)))
      build = await requestBuild(deps, order);
    // Checked once it is ready to download, not on every poll of a build under way.
    if (build.state === 'ready') await assertFindingsConfirmed(deps.db, link, holder);
    res.set('Cache-Control', 'no-store').json(await buildStatus(signer, link, holder.job.job_number, build));
  });

  router.get('/exports/:job_id/packet/builds/:build_id/:file_name', async (req: Request, res: Response) => {
    const { link, holder } = await packetLinkOf(deps, req);
    await charge(res, limiter, 'work', holder.caller.keyId, 1);
    const order = orderOf(link, holder);
    const build = await findBuild(deps.db, order, String(req.params.build_id));
    if (build.state !== 'ready')
      throw new ApiError(
        409,
        'invalid_state',
        `The packet is ${build.state === 'failed' ? 'not built' : 'still being built'}; its status URL says when it is ready.`,
      );
    if (await isOutdated(deps.db, order, build))
      throw new ApiError(
        409,
        'packet_outdated',
        'The job changed since this packet was built: its status URL builds it again.',
      );
    if (build.estimate_version !== null) await assertFindingsConfirmed(deps.db, link, holder);
    const headers = {
      'Content-Type': 'application/pdf',
      'Content-Disposition': `attachment; filename="${packetFileName(holder.job.job_number)}"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
      ETag: `"${build.id}"`,
    };
    const version = build.estimate_version;
    // Once the whole file has been sent (in one response, or a download and the ranges resuming
    // it), a draft estimate it prints becomes final, in one transaction with its feed entry and
    // the build's delivery.
    const delivered = async (sent: ByteRange) => {
      if (version === null) return void (await recordDelivery(deps.db, build, sent.start, sent.end));
      await deps.pipeline.linkWrite(holder.caller, holder.job.id, async (ctx) => {
        // The findings are checked again as it becomes final: one may have appeared while it was sent.
        await assertFindingsConfirmed(ctx.db, link, holder);
        if (await recordDelivery(ctx.db, build, sent.start, sent.end))
          await finalizeEstimate(ctx, link.params.est, holder.job.id, order.documents, version);
      });
    };
    await sendStoredFile(req, res, deps.media.files, build.file_key, headers, {
      beforeEnd: req.method === 'HEAD' ? undefined : delivered,
    });
  });

  router.get('/exports/:job_id/photos/:file_name', async (req: Request, res: Response) => {
    const link = personLinkOf(req.query, String(req.params.job_id), 'export_zip', ZIP_LINK_PARAMS);
    const holder = await holderOfLink(deps.db, deps.media.links, link, ZIP_LINK_PARAMS, req.query.s);
    await charge(res, limiter, 'work', holder.caller.keyId, 1);
    const selection = link.params.p
      ? { photoIds: link.params.p.split(',') }
      : link.params.r
        ? { room: roomNamed(link.params.r, []) }
        : {};
    res.status(200).set({
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${String(req.params.file_name).replace(/[^\w.-]/g, '_')}"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    await streamPhotoZip(
      deps,
      holder.caller.companyId,
      holder.caller.timezone,
      holder.job.id,
      selection,
      res,
    );
  });

  router.use(linkErrors);
  return router;
}

async function packetLinkOf(deps: Deps, req: Request): Promise<{ link: PacketLink; holder: LinkHolder }> {
  const link = personLinkOf(req.query, String(req.params.job_id), 'export_pdf', PACKET_LINK_PARAMS);
  return {
    link,
    holder: await holderOfLink(
      deps.db,
      deps.media.links,
      link,
      PACKET_LINK_PARAMS,
      req.query.s,
      PACKET_LINK_ADDED,
    ),
  };
}

/** The packet's estimate when the packet would make it final: a draft it prints. */
async function draftEstimate(
  db: Knex,
  link: PacketLink,
  holder: LinkHolder,
): Promise<{ label: string } | null> {
  if (!link.params.est) return null;
  const estimate = await db('estimates')
    .where({ id: link.params.est, company_id: holder.caller.companyId, status: 'draft' })
    .first('label');
  return estimate ?? null;
}

/** Refuses (409 `findings_unconfirmed`) a step towards finalising whose link did not confirm the high findings now. */
async function assertFindingsConfirmed(db: Knex, link: PacketLink, holder: LinkHolder): Promise<void> {
  const estimate = await draftEstimate(db, link, holder);
  if (estimate)
    assertConfirmed(await highFindings(db, holder.caller, holder.job.id), link.params.cf, estimate.label);
}

/**
 * The link a Download goes on with: carrying the findings confirmed by `confirm_findings` when
 * it is sent (the page's confirmation), else the link's own; refused when they are not the
 * high findings now.
 */
async function confirmedLink(
  deps: Deps,
  link: PacketLink,
  holder: LinkHolder,
  confirmFindings: unknown,
): Promise<PacketLink> {
  if (confirmFindings === undefined) {
    await assertFindingsConfirmed(deps.db, link, holder);
    return link;
  }
  const keys = [confirmFindings].flat();
  if (keys.length > 100 || !keys.every((key): key is string => typeof key === 'string' && key !== ''))
    throw invalidRequest([
      { path: '/query/confirm_findings', message: 'must be up to 100 finding keys, each a non-empty string' },
    ]);
  const estimate = await draftEstimate(deps.db, link, holder);
  if (!estimate) return link;
  const findings = await highFindings(deps.db, holder.caller, holder.job.id);
  return { ...link, params: { ...link.params, cf: confirmedToken(findings, keys, estimate.label) } };
}

function orderOf(link: PacketLink, holder: LinkHolder): PacketOrder {
  return {
    caller: holder.caller,
    jobId: holder.job.id,
    documents: packetDocuments(link),
    estimateId: link.params.est,
  };
}
