/**
 * The links the two export tools hand out. Each acts for the person of the key that made it
 * (src/platform/person-links.ts) and names what it exports: a packet its documents and estimate
 * (`d`, `est`) and the findings confirmed (`cf`), a ZIP its room or photos (`r`, `p`).
 */
import type { components } from '../../../sdk/src/schema';
import type { CallContext } from '../../platform/handler';
import { LinkSigner } from '../../platform/links';
import { personLinkQuery, type PersonLink } from '../../platform/person-links';

export type ExportDocument = components['schemas']['ExportDocument'];

/** A packet's sections are always in this order, whatever the order asked. */
export const PACKET_ORDER: readonly ExportDocument[] = ['estimate', 'drying_log', 'photos', 'signed_forms'];

export const PACKET_LINK_PARAMS = ['d', 'est', 'cf'] as const;
/** `cf`, the token of the high findings the person confirmed (finding-confirmation.ts), is signed only when set. */
export const PACKET_LINK_ADDED = ['cf'] as const;
export const ZIP_LINK_PARAMS = ['r', 'p'] as const;

export type PacketLink = PersonLink<(typeof PACKET_LINK_PARAMS)[number]>;
export type ZipLink = PersonLink<(typeof ZIP_LINK_PARAMS)[number]>;

/** The documents a packet link names, in packet order; unknown names are dropped (the signature already vouches for them). */
export function packetDocuments(link: PacketLink): ExportDocument[] {
  const named = link.params.d.split(',');
  return PACKET_ORDER.filter((document) => named.includes(document));
}

/** When an export link made now with `expiresIn` (else the service's default) ends, in Unix seconds. */
export function exportExpiry(ctx: Pick<CallContext, 'config'>, expiresIn: number | undefined): number {
  return LinkSigner.expiryIn(expiresIn ?? ctx.config.links.exportSeconds, false);
}

/** The name a packet's PDF is saved under. */
export function packetFileName(jobNumber: number): string {
  return `job-${jobNumber}-packet.pdf`;
}

/** A build's status and file addresses under a packet link: they carry the link's signature. */
export async function packetBuildUrls(
  ctx: Pick<CallContext, 'config' | 'links'>,
  link: PacketLink,
  buildId: string,
  jobNumber: number,
): Promise<{ status: string; file: string }> {
  const query = await personLinkQuery(ctx.links, link, PACKET_LINK_PARAMS, PACKET_LINK_ADDED);
  const base = `${ctx.config.publicUrl}/exports/${link.jobId}/packet/builds/${buildId}`;
  return { status: `${base}?${query}`, file: `${base}/${packetFileName(jobNumber)}?${query}` };
}

/** The download page and the PDF's own address of a packet link. */
export async function packetUrls(
  ctx: Pick<CallContext, 'config' | 'links'>,
  link: PacketLink,
): Promise<{ page: string; pdf: string }> {
  const query = await personLinkQuery(ctx.links, link, PACKET_LINK_PARAMS, PACKET_LINK_ADDED);
  const base = `${ctx.config.publicUrl}/exports/${link.jobId}/packet`;
  return { page: `${base}?${query}`, pdf: `${base}.pdf?${query}` };
}

/** A ZIP link: its file name is in the path, so that a program saving it by its URL names it well. */
export async function zipUrl(
  ctx: Pick<CallContext, 'config' | 'links'>,
  link: ZipLink,
  fileName: string,
): Promise<string> {
  const query = await personLinkQuery(ctx.links, link, ZIP_LINK_PARAMS);
  return `${ctx.config.publicUrl}/exports/${link.jobId}/photos/${encodeURIComponent(fileName)}?${query}`;
}
