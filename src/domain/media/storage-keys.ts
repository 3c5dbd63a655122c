/** Where a stored file's original and its renditions, and built packets, are kept in the file store. */

/** A stored file's original and renditions: `web` is the viewable JPEG (a video's still frame); `shareable` a photo's original without its location (infrastructure/programs/photo-location.ts). */
export type FileVariant = 'original' | 'web' | 'thumbnail' | 'shareable';

/**
 * Where a stored file's variants are kept: by company and content, so that no company can reach
 * another's. (The `photos` segment dates from when photos were the only files; videos and
 * documents are kept the same way, so that stored files never move.)
 */
export function storageKey(companyId: string, sha256: string, variant: FileVariant): string {
  return `${companyId}/photos/${sha256}/${variant}`;
}

/** Built PDF packets (../exports/packet-builds.ts), apart from uploaded files. */
export const PACKETS_PREFIX = 'packets/';

export function packetKey(companyId: string, buildId: string): string {
  return `${PACKETS_PREFIX}${companyId}/${buildId}.pdf`;
}
