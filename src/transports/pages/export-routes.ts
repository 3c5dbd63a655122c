/**
 * The key-less routes of the export links: a packet's download page (GET, changes nothing), its
 * PDF (POST only, so that a link preview or a prefetch can never finalise an estimate), and the
 * photo ZIP (GET). Each acts for the person of the key that made the link and is charged to
 * that key's rate limit.
 */
import express, { type Request, type Response, type Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError } from '../../platform/errors';
import { readableMoment } from '../../platform/local-time';
import { formatMoney } from '../../platform/money';
import { holderOfLink, personLinkOf, type LinkHolder } from '../../platform/person-links';
import type { RateLimiter } from '../../platform/rate-limit';
import { loadEstimate, totalsOf } from '../../domain/estimates/estimate-records';
import { linkErrors } from '../files/media-routes';
import { roomNamed } from '../../domain/media/photo-records';
import { PACKET_LINK_PARAMS, packetDocuments, ZIP_LINK_PARAMS, type PacketLink } from '../../domain/exports/export-links';
import { packetPage } from './export-page';
import { pageHeaders, refuseCrossSite } from './page-security';
import { gatherPacket } from '../../domain/exports/packet-gather';
import { finalizeEstimate } from '../../domain/estimates/finalize-estimate';
import { streamPhotoZip } from '../../domain/exports/photo-zip';
import type { Deps } from '../../domain/services';

export function exportRoutes(deps: Deps, limiter: RateLimiter): Router {
  const router = express.Router();

  router.get('/exports/:job_id/packet', async (req: Request, res: Response) => {
    const { link, holder } = await packetLinkOf(deps, req);
    const documents = packetDocuments(link);
    const estimate = link.params.est ? await loadEstimate(deps.db, holder.caller, link.params.est) : null;
    const totals = estimate ? totalsOf(estimate) : null;
    const page = packetPage({
      jobNumber: holder.job.job_number,
      jobTitle: holder.job.title,
      documents,
      estimate: estimate && totals ? { label: estimate.estimate.label, total: formatMoney(totals.total_cents, totals.currency), final: estimate.estimate.status === 'final' } : null,
      photoCount: Number(holder.job.photo_count),
      expires: readableMoment(new Date(link.expires * 1000), holder.caller.timezone),
      fileName: packetFileName(holder),
    });
    res.type('html').set(pageHeaders(page.nonce)).send(page.html);
  });

  router.get('/exports/:job_id/packet.pdf', () => {
    throw new ApiError(405, 'method_not_allowed', 'The PDF is made by POST (the download page does it), so that opening or previewing a link never finalises an estimate.', { headers: { Allow: 'POST' } });
  });

  router.post('/exports/:job_id/packet.pdf', refuseCrossSite, async (req: Request, res: Response) => {
    const { link, holder } = await packetLinkOf(deps, req);
    await limiter.charge(res, 'work', holder.caller.keyId, 1);
    const documents = packetDocuments(link);
    const packet = await gatherPacket(deps, holder.caller, holder.job.id, documents, link.params.est);
    try {
      res.status(200).set({
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="${packetFileName(holder)}"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      // The whole PDF goes out before the estimate becomes final, and the response ends only once
      // it is: a client that has the complete response sees the estimate final, and one that went
      // away, failed or timed out part-way leaves it a draft.
      await pipeline(deps.media.packets.build(packet.data), res, { end: false });
      await allHandedOver(res);
      const version = packet.draftVersion;
      if (version !== null) await deps.pipeline.linkWrite(holder.caller, holder.job.id, (ctx) => finalizeEstimate(ctx, link.params.est, holder.job.id, documents, version));
      res.end();
    } catch (error) {
      if (!res.headersSent) throw error;
      // Part of the PDF is out: cutting the connection is the only way left to say it failed.
      req.log.warn({ err: error }, 'packet download not completed; its estimate stays as it was');
      res.destroy();
    } finally {
      await packet.cleanup();
    }
  });

  router.get('/exports/:job_id/photos/:file_name', async (req: Request, res: Response) => {
    const link = personLinkOf(req, 'export_zip', ZIP_LINK_PARAMS);
    const holder = await holderOfLink(deps.db, deps.media.links, link, ZIP_LINK_PARAMS, req.query.s);
    await limiter.charge(res, 'work', holder.caller.keyId, 1);
    const selection = link.params.p ? { photoIds: link.params.p.split(',') } : link.params.r ? { room: roomNamed(link.params.r, []) } : {};
    res.status(200).set({
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${String(req.params.file_name).replace(/[^\w.-]/g, '_')}"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    await streamPhotoZip(deps, holder.caller.companyId, holder.caller.timezone, holder.job.id, selection, res);
  });

  router.use(linkErrors);
  return router;
}

async function packetLinkOf(deps: Deps, req: Request): Promise<{ link: PacketLink; holder: LinkHolder }> {
  const link = personLinkOf(req, 'export_pdf', PACKET_LINK_PARAMS);
  return { link, holder: await holderOfLink(deps.db, deps.media.links, link, PACKET_LINK_PARAMS, req.query.s) };
}

/** Resolves once every byte written to the response is with the operating system; rejects if the client went away. */
async function allHandedOver(res: Response): Promise<void> {
  while (res.writableLength > 0 && !res.destroyed) await delay(5);
  if (res.destroyed) throw new Error('the client went away before the whole PDF was sent');
}

function packetFileName(holder: LinkHolder): string {
  return `job-${holder.job.job_number}-packet.pdf`;
}
