/**
 * A bounded pool of worker threads that decode uploaded photos (MEDIA_WORKERS): however many
 * photos arrive at once, at most that many are decoded at a time, and never on the event loop.
 */
import path from 'node:path';
import { Piscina } from 'piscina';
import type { DecodeTask, ImageResult } from './photo-decoding';
import { workerExecArgv } from '../worker-threads';

export type { ImageResult, PreparedImage } from './photo-decoding';

export class DecodePool {
  private readonly pool: Piscina<DecodeTask, ImageResult>;

  constructor(threads: number) {
    // The worker is TypeScript: under jest (which runs without tsx) the loader is added.
    const execArgv = workerExecArgv();
    this.pool = new Piscina({
      filename: path.join(__dirname, 'photo-decoding.ts'),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      execArgv,
    });
  }

  decode(task: DecodeTask): Promise<ImageResult> {
    return this.pool.run(task);
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
