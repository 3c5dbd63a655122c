/**
 * Signed links to stored files, and what each link opens: a photo's renditions, a video's play
 * (the original, seekable) and still, a document's download (the original under its name). The
 * original of a photo is never linked, so no photo's location data leaves.
 */
import type { CallContext } from '../../platform/handler';
import type { LinkPurpose } from '../../platform/links';
import { LinkSigner } from '../../platform/links';
import type { FileVariant } from './storage-keys';

export const LINKED = {
  photos: { purpose: 'photo', variants: { web: 'web', thumbnail: 'thumbnail' } },
  videos: { purpose: 'video', variants: { play: 'original', still: 'web' } },
  documents: { purpose: 'document', variants: { download: 'original' } },
} as const satisfies Record<string, { purpose: LinkPurpose; variants: Record<string, FileVariant> }>;

export type Collection = keyof typeof LINKED;
export type LinkVariant<C extends Collection> = keyof (typeof LINKED)[C]['variants'] & string;

export interface SignedLink {
  url: string;
  /** Unix seconds. */
  expires: number;
}

/** A link to one variant of a photo, video or document, valid for the service's file-link lifetime. */
export async function fileLink<C extends Collection>(
  ctx: Pick<CallContext, 'links' | 'config'>,
  companyId: string,
  collection: C,
  id: string,
  variant: LinkVariant<C>,
): Promise<SignedLink> {
  const expires = LinkSigner.expiryIn(ctx.config.links.fileSeconds);
  const object = `${id}/${variant}`;
  const signature = await ctx.links.sign({ purpose: LINKED[collection].purpose, companyId, object, expires });
  const query = new URLSearchParams({ c: companyId, e: String(expires), s: signature });
  return { url: `${ctx.config.publicUrl}/files/${collection}/${object}?${query}`, expires };
}

/** The stored variant a link's variant opens, or null when the collection has no such link. */
export function storedVariant(
  collection: string,
  variant: string,
): { collection: Collection; stored: FileVariant } | null {
  if (!Object.hasOwn(LINKED, collection)) return null;
  const variants: Record<string, FileVariant> = LINKED[collection as Collection].variants;
  return Object.hasOwn(variants, variant)
    ? { collection: collection as Collection, stored: variants[variant] }
    : null;
}
