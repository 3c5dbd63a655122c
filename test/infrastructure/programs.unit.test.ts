/**
 * runProgram (src/infrastructure/programs/programs.ts): the programs the service runs (ffmpeg,
 * tesseract, poppler) run below the service's CPU priority, so that the event loop answering
 * every company's calls goes first on a busy node.
 */
import { getPriority } from 'node:os';
import { runProgram } from '../../src/infrastructure/programs/programs';

it('runs a program at niceness 10 while the service keeps its own', async () => {
  // `nice` without a command prints the niceness it runs at; the sleep lets the lowering land first.
  const run = await runProgram('/bin/sh', ['-c', 'sleep 0.2; nice'], {
    timeoutMs: 5_000,
    maxOutputBytes: 1024,
  });
  expect(run.code).toBe(0);
  expect(Number(run.stdout.toString().trim())).toBe(10);
  expect(getPriority()).toBe(0);
});
