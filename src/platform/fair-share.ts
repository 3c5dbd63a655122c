/**
 * Fair shares between companies on one node: at most `limit` tool calls of one company run at
 * once, over HTTP and MCP alike (each call of an MCP batch counts); the company's other calls wait
 * their turn, in order. A company working at the edge of its rate limit can then hold only a few
 * of the database pool's connections, and another company's calls find one free.
 */
export class CompanySlots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  async run<T>(companyId: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(companyId);
    try {
      return await work();
    } finally {
      this.release(companyId);
    }
  }

  /**
   * Waits for `work` done elsewhere (OCR in its pool) without holding the company's slot, then
   * takes a slot again: a call waiting seconds for pages must not stop the company's other calls.
   */
  async aside<T>(companyId: string, work: Promise<T>): Promise<T> {
    this.release(companyId);
    try {
      return await work;
    } finally {
      await this.acquire(companyId);
    }
  }

  private acquire(companyId: string): Promise<void> {
    const running = this.running.get(companyId) ?? 0;
    if (running < this.limit) {
      this.running.set(companyId, running + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(companyId) ?? [];
      queue.push(resolve);
      this.waiting.set(companyId, queue);
    });
  }

  /** Hands the slot to the company's next waiting call, or frees it. */
  private release(companyId: string): void {
    const queue = this.waiting.get(companyId);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(companyId);
    if (next) {
      next();
      return;
    }
    const running = (this.running.get(companyId) ?? 1) - 1;
    if (running === 0) this.running.delete(companyId);
    else this.running.set(companyId, running);
  }
}

/** Past this many companies remembered, those whose due moment has passed are forgotten. */
const PACE_MEMORY = 256;

/**
 * How fast a node reads one company's upload bytes, shared by all its uploads: each company has
 * a moment its next bytes are due, and the bytes read move it on by their time at the pace (a
 * generic cell rate). Up to `burstMs` ahead of it passes at once. Reading the bytes is most of an
 * upload's cost (the kernel's copy, the parser, the hash, the disk), so the pace bounds the CPU
 * one company's uploads take from the others however fast its connection is.
 */
export class CompanyBytePace {
  private readonly due = new Map<string, number>();

  /** `bytesPerSecond` null: no pace. */
  constructor(
    private readonly bytesPerSecond: number | null,
    private readonly burstMs = 100,
  ) {}

  /** Milliseconds to wait before passing `bytes` more of the company's upload on. */
  delayFor(companyId: string, bytes: number): number {
    if (this.bytesPerSecond === null) return 0;
    const now = performance.now();
    const start = Math.max(this.due.get(companyId) ?? now, now);
    this.due.set(companyId, start + (bytes * 1000) / this.bytesPerSecond);
    if (this.due.size > PACE_MEMORY) this.forgetPast(now);
    return Math.max(0, start - now - this.burstMs);
  }

  private forgetPast(now: number): void {
    for (const [companyId, due] of this.due) if (due < now) this.due.delete(companyId);
  }
}

/** What bounds one company's uploads on a node: how many are read at once, and how fast. */
export interface UploadShares {
  slots: CompanySlots;
  pace: CompanyBytePace;
}
