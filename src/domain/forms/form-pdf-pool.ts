/**
 * A bounded pool of worker threads that make signed forms' PDFs (PDF_WORKERS), as the packet
 * pool does for packets: laying a form out and drawing its signatures is CPU work that never runs
 * on the event loop.
 */
import path from 'node:path';
import { Piscina } from 'piscina';
import type { FormPdfData } from './form-pdf-document';
import type { FormPdfResult, FormPdfTask } from './form-pdf-worker';
import { workerExecArgv } from '../../infrastructure/worker-threads';

export class FormPdfPool {
  private readonly pool: Piscina<FormPdfTask, FormPdfResult>;

  constructor(threads: number) {
    this.pool = new Piscina({
      filename: path.join(__dirname, 'form-pdf-worker.ts'),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      // The worker is TypeScript: under jest (which runs without tsx) the loader is added.
      execArgv: workerExecArgv(),
    });
  }

  /** Writes the form's PDF to `out`; answers its size, SHA-256 and page count. */
  build(data: FormPdfData, out: string): Promise<FormPdfResult> {
    return this.pool.run({ data, out });
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
