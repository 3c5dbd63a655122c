import { availableParallelism, loadavg } from 'node:os';

/**
 * How long a node may take to start before a test gives up. It takes a few seconds; on a machine
 * busy with other work (2 cores, load 12 and more) it has taken over thirty. The service tier's
 * tests and hooks wait longer than this (setup-service.ts), so that a slow start fails with this
 * message rather than with jest's generic hook timeout.
 */
export const START_TIMEOUT_MS = Number(process.env.TEST_START_TIMEOUT_MS ?? 90_000);

export function slowStartMessage(): string {
  const load = loadavg()[0]!.toFixed(1);
  return (
    `starting a node took over ${START_TIMEOUT_MS / 1000} s: the machine is loaded ` +
    `(load average ${load} on ${availableParallelism()} cores). Run fewer tests at once ` +
    '(npm run -s jest -- <files>, or --maxWorkers=1), or allow more time with TEST_START_TIMEOUT_MS.'
  );
}
