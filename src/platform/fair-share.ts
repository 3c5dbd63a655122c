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
    if (next) return next();
    const running = (this.running.get(companyId) ?? 1) - 1;
    if (running === 0) this.running.delete(companyId);
    else this.running.set(companyId, running);
  }
}
