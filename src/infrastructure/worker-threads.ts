/**
 * The Node options our worker threads start with: the main thread's, so that they load
 * TypeScript as it does (tsx), less the heap limits, which are the process's and which a worker
 * refuses (ERR_WORKER_INVALID_EXEC_ARGV).
 */
export function workerExecArgv(): string[] {
  const own = process.execArgv.filter((arg) => !/^--max-(old|semi)-space-size/.test(arg));
  return own.some((arg) => arg.includes('tsx')) ? own : [...own, '--import', 'tsx'];
}
