/**
 * What every node of the service runs beside its HTTP server, made here once: its temporary
 * directory, the Redis connection that shares rate-limit counts between nodes (REDIS_URL), the
 * listener that hears key revocations made on other nodes (PostgreSQL), the durable job queue
 * with the kinds of work this node takes, the file store with the image, video, OCR and PDF
 * workers, and the periodic purge of expired idempotency records, OAuth codes and tokens, and of
 * stored files nothing uses.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Redis } from 'ioredis';
import type { Config } from './platform/config';
import { KeyChangeListener } from './platform/key-cache';
import { purgeExpiredAnswers } from './platform/idempotency';
import { purgeExpiredOAuthRows } from './platform/oauth/expired';
import { LinkSigner } from './platform/links';
import { openFileStore } from './infrastructure/files/open-store';
import { sweepTempDir, useTempDir } from './infrastructure/files/temp-dir';
import type { JobData, JobKind } from './infrastructure/queue/job-queue';
import { DecodePool } from './infrastructure/images/decode-pool';
import { OcrPool } from './infrastructure/programs/ocr-pool';
import { LocationRemover } from './infrastructure/programs/photo-location';
import { VideoTools } from './infrastructure/programs/video-probe';
import { JobQueue } from './infrastructure/queue/job-queue';
import { DocumentReader } from './domain/documents/document-text';
import { FormPdfPool } from './domain/forms/form-pdf-pool';
import { PacketPool } from './domain/exports/packet-pool';
import { sweepObjectsWithoutRows, sweepUnfinishedFiles, sweepUnusedFiles } from './domain/media/file-sweeper';
import { chatDeliveryKind, startChatDelivery } from './domain/chat/delivery';
import { WebhookDelivery } from './domain/webhooks/delivery';
import { purgeOldAttempts } from './domain/webhooks/endpoints';
import type { MediaServices } from './domain/services';
import { packetBuildKind, sweepPacketBuilds } from './domain/exports/packet-builds';
import { CompanySlots } from './platform/fair-share';
import { toolPipeline } from './tools';

const MAINTENANCE = 'maintenance.sweep';
const HOUR_SECONDS = 3600;
/** A built packet is kept this long after it was last asked for. */
const PACKET_KEPT_HOURS = 24;
/** The first sweep waits for start-up to be over. */
const FIRST_SWEEP_AFTER_MS = 60_000;
/** Temporary files nobody touched for this long are what a crash left (an upload or a job is written to as it goes). */
const TEMP_MAX_AGE_MS = 6 * 3600_000;
/** ffprobe reads a header in well under a second; a still frame of a long 4K clip takes a few. */
const PROBE_TIMEOUT_MS = 30_000;
const STILL_TIMEOUT_MS = 60_000;
/** A rendered page's longer side: 300 dpi for pages up to 20 inches. */
const OCR_MAX_SIDE_PIXELS = 6000;

export interface NodeServices {
  redis: Redis | null;
  media: MediaServices;
  queue: JobQueue;
  webhooks: WebhookDelivery;
  /**
   * Stops taking work: deliveries under way are cut short and given back, the queue's jobs held
   * here are released for another node. Resolves when the jobs running here have ended.
   */
  stopWork(): Promise<void>;
  /** Stops work, then closes the queue, the worker pools, the key listener and Redis. */
  stop(): Promise<void>;
}

/**
 * `deliverChat`, `deliverWebhooks`: whether this node posts chat notifications and webhook
 * deliveries (the service does; a test that drives deliveries itself, or shares its database with
 * tests that do, leaves them queued).
 */
export async function startNodeServices(
  db: Knex,
  config: Config,
  logger: Logger,
  options: { deliverChat?: boolean; deliverWebhooks?: boolean } = {},
): Promise<NodeServices> {
  const tempDir = useTempDir(config.tempDir);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, logger) : null;
  const keys = config.databaseUrl ? new KeyChangeListener(config.databaseUrl, logger) : null;
  await keys?.start();

  const queue = await JobQueue.start(db, { ...config.queue, databaseUrl: config.databaseUrl }, logger);
  const { media, ocr } = await startMedia(db, config, logger, queue);
  await queue.register(
    media.documents.ocrKind(config.ocrWorkers, Math.ceil(config.ocrPageTimeoutSeconds * 1.5)),
  );
  const chat = startChatDelivery({ db, config, logger, queue }, { poll: false });
  await queue.register(chatDeliveryKind(chat, config), { take: options.deliverChat ?? false });
  const webhooks = new WebhookDelivery({ db, config, logger, queue });
  await queue.register(webhooks.kind(), { take: options.deliverWebhooks ?? false });
  if (options.deliverWebhooks) webhooks.startSweeping();

  // Packets are built as the tools answer: through a pipeline of this node's own, so that builds
  // do not take the slots of the company's calls (the queue shares the builds between companies).
  const pipeline = toolPipeline({
    db,
    config,
    slots: new CompanySlots(config.companyConcurrency),
    media,
    webhooks,
  });
  await queue.register(packetBuildKind({ db, config, pipeline, media }));
  await queue.register(maintenanceKind(db, media, config, logger));
  const hourly = async () => {
    // Every node asks; the queue runs one sweep an hour for them all, on whichever node takes it.
    await queue
      .send(MAINTENANCE, { companyId: '' }, { singletonKey: 'sweep', onceIn: HOUR_SECONDS })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not queue the sweep'));
    // Each node's temporary files are its own.
    await sweepTempDir(tempDir, TEMP_MAX_AGE_MS).catch((error: unknown) =>
      logger.warn({ err: error }, 'temporary files sweep failed'),
    );
  };
  const timer = setInterval(() => void hourly(), HOUR_SECONDS * 1000);
  timer.unref();
  const first = setTimeout(() => void hourly(), FIRST_SWEEP_AFTER_MS);
  first.unref();

  let working: Promise<void> | null = null;
  const stopWork = () => {
    working ??= (async () => {
      clearInterval(timer);
      webhooks.stopSweeping();
      clearTimeout(first);
      // The jobs this node runs end: deliveries are cut short, OCR's pages too (retried elsewhere).
      await Promise.all([queue.stopTaking(), chat.stop(), ocr.close()]);
    })();
    return working;
  };
  return {
    redis,
    media,
    queue,
    webhooks,
    stopWork,
    async stop() {
      await stopWork();
      await queue.stop();
      await Promise.all([
        media.images.destroy(),
        media.locations.close(),
        media.packets.destroy(),
        media.forms.destroy(),
      ]);
      await keys?.stop();
      redis?.disconnect();
    },
  };
}

async function startMedia(
  db: Knex,
  config: Config,
  logger: Logger,
  queue: JobQueue,
): Promise<{ media: MediaServices; ocr: OcrPool }> {
  const links = new LinkSigner(db, config.links.secret);
  await links.ready();
  const files = openFileStore(config.files);
  const ocr = new OcrPool({
    workers: config.ocrWorkers,
    pageTimeoutMs: config.ocrPageTimeoutSeconds * 1000,
    maxSidePixels: OCR_MAX_SIDE_PIXELS,
  });
  const media: MediaServices = {
    files,
    links,
    images: new DecodePool(config.mediaWorkers),
    videos: new VideoTools({
      concurrency: config.mediaWorkers,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      stillTimeoutMs: STILL_TIMEOUT_MS,
    }),
    documents: new DocumentReader(db, files, ocr, queue, logger),
    locations: new LocationRemover(config.mediaWorkers),
    packets: new PacketPool(config.pdfWorkers),
    forms: new FormPdfPool(config.pdfWorkers),
    queue,
  };
  return { media, ocr };
}

function maintenanceKind(db: Knex, media: MediaServices, config: Config, logger: Logger): JobKind<JobData> {
  return {
    name: MAINTENANCE,
    concurrency: 1,
    expireInSeconds: 30 * 60,
    retryLimit: 2,
    retryDelaySeconds: 60,
    run: () => sweepStorage(db, media, config, logger),
  };
}

/**
 * Purges expired idempotency records, webhook delivery attempts and OAuth codes and tokens, and
 * sweeps the file store: files nothing uses any more, files whose upload never finished, objects no
 * row names, and packets nobody asked for lately.
 */
export async function sweepStorage(
  db: Knex,
  media: Pick<MediaServices, 'files'>,
  config: Config,
  logger: Logger,
): Promise<void> {
  const deleted = await purgeExpiredAnswers(db, config.idempotencyRetentionDays);
  // Files nothing uses any more are kept as long as a replay could still show them.
  const unused = await sweepUnusedFiles(db, media.files, config.idempotencyRetentionDays);
  const unfinished = await sweepUnfinishedFiles(db, media.files, config.unfinishedFilesMinutes);
  const orphans = await sweepObjectsWithoutRows(db, media.files, config.unfinishedFilesMinutes * 60_000);
  const packets = await sweepPacketBuilds(db, media.files, PACKET_KEPT_HOURS);
  const attempts = await purgeOldAttempts(db);
  const oauth = await purgeExpiredOAuthRows(db);
  if (deleted + unused + unfinished + orphans + packets + attempts + oauth > 0)
    logger.info(
      { deleted, unused, unfinished, orphans, packets, attempts, oauth },
      'swept expired answers, stored files and packets, the webhook log, and expired OAuth codes and tokens',
    );
}

/** Until Redis answers, each node counts on its own (the limiter's in-memory fallback). */
async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (error) => logger.warn({ err: error }, 'redis'));
  await redis
    .connect()
    .catch((error: Error) =>
      logger.warn({ err: error }, 'redis is not reachable yet; rate limits count per node meanwhile'),
    );
  return redis;
}
