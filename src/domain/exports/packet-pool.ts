/**
 * A bounded pool of worker threads that lay PDF packets out (PDF_WORKERS): a packet of a hundred
 * photos takes seconds of CPU, never on the event loop. `build` answers at once with a stream
 * of the PDF, fed by the worker as the reader takes it (see packet-worker.ts for the messages).
 */
import path from 'node:path';
import { Readable } from 'node:stream';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { PacketData } from './packet-data';
import type { PacketMessage, PacketPull, PacketResult, PacketTask } from './packet-worker';
import { workerExecArgv } from '../../infrastructure/worker-threads';

export class PacketPool {
  private readonly pool: Piscina<PacketTask, PacketResult>;

  constructor(threads: number) {
    // The worker is TypeScript: under jest (which runs without tsx) the loader is added.
    const execArgv = workerExecArgv();
    this.pool = new Piscina({
      filename: path.join(__dirname, 'packet-worker.ts'),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      execArgv,
    });
  }

  /**
   * The packet's PDF; a failure to make it is the stream's error. Destroying the stream stops the
   * work. `printed` hears how many photos' pictures are made, as they are.
   */
  build(data: PacketData, printed: (count: number) => void = () => {}): Readable {
    const { port1, port2 } = new MessageChannel();
    const stream = new PacketStream(port1, printed);
    this.pool
      .run({ data, port: port2 }, { transferList: [port2] })
      .catch((error: unknown) => stream.failed(error));
    return stream;
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

/** The PDF's bytes as they arrive; each chunk taken lets the worker send one more. */
class PacketStream extends Readable {
  private received = 0;
  private complete = false;

  constructor(
    private readonly port: MessagePort,
    private readonly printed: (count: number) => void,
  ) {
    super();
    port.on('message', (message: PacketMessage) => this.receive(message));
  }

  private receive(message: PacketMessage): void {
    if (this.destroyed) return;
    if ('printed' in message) {
      this.printed(message.printed);
    } else if ('chunk' in message) {
      this.received += 1;
      this.push(Buffer.from(message.chunk));
    } else if ('end' in message) {
      this.complete = true;
      this.port.close();
      this.push(null);
    } else {
      this.destroy(new Error(`The PDF packet could not be made: ${message.error}`));
    }
  }

  /** Called when the stream has room: the chunks received so far have been taken. */
  override _read(): void {
    if (this.received === 0) return;
    this.port.postMessage({ more: this.received } satisfies PacketPull);
    this.received = 0;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Closing the port tells the worker to stop (when the reader went away before the end).
    this.port.close();
    callback(error);
  }

  /** The task failed without saying so on the port (the thread died, the pool was destroyed). */
  failed(error: unknown): void {
    if (this.destroyed || this.complete) return;
    this.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
