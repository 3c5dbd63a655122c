/**
 * What every node of the service runs beside its HTTP server: the Redis connection that shares
 * rate-limit counts between nodes (REDIS_URL), the listener that hears key revocations made on
 * other nodes (PostgreSQL), the file store with the image, video and OCR workers, and the
 * periodic purge of expired idempotency records and of stored files nothing uses.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Redis } from 'ioredis';
import type { Config } from './platform/config';
import { KeyChangeListener } from './platform/key-cache';
import { purgeExpiredAnswers } from './platform/idempotency';
import { startMedia } from './media-services';
import { sweepUnusedFiles } from './domain/media/file-sweeper';
import { type MediaServices } from './domain/services';

const PURGE_EVERY_MS = 60 * 60_000;
/** The first purge waits for start-up to be over. */
const FIRST_PURGE_AFTER_MS = 60_000;

export interface NodeServices {
  redis: Redis | null;
  media: MediaServices;
  stop(): Promise<void>;
}

export async function startNodeServices(db: Knex, config: Config, logger: Logger): Promise<NodeServices> {
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, logger) : null;
  const keys = config.databaseUrl ? new KeyChangeListener(config.databaseUrl, logger) : null;
  await keys?.start();

  const media = await startMedia(db, config, logger);
  const purge = async () => {
    try {
      const deleted = await purgeExpiredAnswers(db, config.idempotencyRetentionDays);
      if (deleted > 0) logger.info({ deleted }, 'purged expired idempotency records');
      // Files nothing uses any more are kept as long as a replay could still show them.
      const files = await sweepUnusedFiles(db, media.files, config.idempotencyRetentionDays);
      if (files > 0) logger.info({ files }, 'deleted stored files nothing uses');
    } catch (error) {
      logger.error({ err: error }, 'purge failed');
    }
  };
  const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
  timer.unref();
  const first = setTimeout(() => void purge(), FIRST_PURGE_AFTER_MS);
  first.unref();

  return {
    redis,
    media,
    async stop() {
      await media.stop();
      clearInterval(timer);
      clearTimeout(first);
      await keys?.stop();
      redis?.disconnect();
    },
  };
}

/** Until Redis answers, each node counts on its own (the limiter's in-memory fallback). */
async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (error) => logger.warn({ err: error }, 'redis'));
  await redis.connect().catch((error: Error) => logger.warn({ err: error }, 'redis is not reachable yet; rate limits count per node meanwhile'));
  return redis;
}
