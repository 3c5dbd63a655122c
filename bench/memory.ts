/** The service's memory as the system sees it (/proc), sampled while a bench case runs. */
import { readFileSync } from 'node:fs';

export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Math.round(Number(line.replace(/\D+/g, '')) / 1024);
}

/** RSS before `run`, and its peak while it runs (sampled every 10 ms). */
export async function peakDuring<T>(
  pid: number,
  run: () => Promise<T>,
): Promise<{ before: number; peak: number; seconds: number; result: T }> {
  const before = rssMb(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
  const started = performance.now();
  try {
    const result = await run();
    return {
      before,
      peak: Math.max(peak, rssMb(pid)),
      seconds: (performance.now() - started) / 1000,
      result,
    };
  } finally {
    clearInterval(timer);
  }
}
