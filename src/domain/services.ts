/**
 * What the code of one request can reach on this node: the database, the settings, the pipeline
 * that runs tools, and the file and media services. The composition root (src/node-services.ts)
 * makes them; the domain and the transports are handed them.
 */
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import type { Pipeline } from '../platform/pipeline';
import type { LinkSigner } from '../platform/links';
import type { FileStore } from '../infrastructure/files/store';
import type { DecodePool } from '../infrastructure/images/decode-pool';
import type { VideoTools } from '../infrastructure/programs/video-probe';
import type { LocationRemover } from '../infrastructure/programs/photo-location';
import type { DocumentReader } from './documents/document-text';
import type { PacketPool } from './exports/packet-pool';
import type { FormPdfPool } from './forms/form-pdf-pool';
import type { JobQueue } from '../infrastructure/queue/job-queue';
import type { WriteSubject } from './write-subject';
import type { WebhookDelivery } from './webhooks/delivery';

export interface MediaServices {
  files: FileStore;
  images: DecodePool;
  videos: VideoTools;
  documents: DocumentReader;
  links: LinkSigner;
  /** Takes the location out of photos that exports share. */
  locations: LocationRemover;
  /** Lays PDF packets out in worker threads. */
  packets: PacketPool;
  /** Makes signed forms' PDFs in worker threads. */
  forms: FormPdfPool;
  /** The durable job queue every node shares (background work, not restoration jobs). */
  queue: JobQueue;
}

/** What tools get beside the platform's context of a call. */
export interface ToolServices {
  /** Reads stored documents' text (kept pages, the text layer, OCR in the background). */
  documents: DocumentReader;
  /** Queues background work (the chat notification of a note) in the write's transaction. */
  queue: JobQueue;
}

export interface Deps {
  db: Knex;
  config: Config;
  pipeline: Pipeline<ToolServices, WriteSubject>;
  media: MediaServices;
  /** Pushes the change feed to webhook endpoints; without it (tests that do not deliver) writes announce nothing. */
  webhooks?: WebhookDelivery;
  /** Aborted when the node stops: uploads under way are cut off with 503 (`npm start` sets it). */
  stopping?: AbortSignal;
}
