/**
 * What files need on each node: the file store, the pool that decodes images, the bounded runner
 * of ffprobe and ffmpeg for videos, the OCR pool with the reader of documents' text, and the
 * link signer.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from './platform/config';
import type { MediaServices } from './domain/services';
import { LinkSigner } from './platform/links';
import { DocumentReader } from './domain/documents/document-text';
import { OcrPool } from './infrastructure/programs/ocr-pool';
import { DecodePool } from './infrastructure/images/decode-pool';
import { VideoTools } from './infrastructure/programs/video-probe';
import { LocationRemover } from './infrastructure/programs/photo-location';
import { PacketPool } from './domain/exports/packet-pool';
import { openFileStore } from './infrastructure/files/open-store';

/** ffprobe reads a header in well under a second; a still frame of a long 4K clip takes a few. */
const PROBE_TIMEOUT_MS = 30_000;
const STILL_TIMEOUT_MS = 60_000;
/** Rendering and reading one page; a 300-dpi page takes about 2.2 s here. */
const OCR_PAGE_TIMEOUT_MS = 60_000;
/** A rendered page's longer side: 300 dpi for pages up to 20 inches. */
const OCR_MAX_SIDE_PIXELS = 6000;

export async function startMedia(db: Knex, config: Config, logger: Logger): Promise<MediaServices> {
  const links = new LinkSigner(db, config.links.secret);
  await links.ready();
  const files = openFileStore(config.files);
  const images = new DecodePool(config.mediaWorkers);
  const videos = new VideoTools({ concurrency: config.mediaWorkers, probeTimeoutMs: PROBE_TIMEOUT_MS, stillTimeoutMs: STILL_TIMEOUT_MS });
  const ocr = new OcrPool({ workers: config.ocrWorkers, pageTimeoutMs: OCR_PAGE_TIMEOUT_MS, maxSidePixels: OCR_MAX_SIDE_PIXELS });
  const documents = new DocumentReader(db, files, ocr, logger, config.ocrPagesPerCompany);
  const locations = new LocationRemover(config.mediaWorkers);
  const packets = new PacketPool(config.pdfWorkers);
  return {
    files,
    images,
    videos,
    documents,
    links,
    locations,
    packets,
    stop: async () => {
      await Promise.all([images.destroy(), ocr.close(), locations.close(), packets.destroy()]);
    },
  };
}
