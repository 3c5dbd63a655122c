/**
 * What a case costs in CPU, per request: the server's process and its main thread (its event
 * loop), PostgreSQL's processes (a local server; PGlite runs inside the service) and the load
 * generator (this process). On a machine whose cores they share, these tell which of them bounds
 * the requests per second.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { CaseResult } from './measure';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** CPU ms used so far by each process named `postgres`. */
function postgresCpu(): Map<number, number> {
  const used = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        used.set(Number(entry), processCpu(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return used;
}

/** CPU ms (user + system) a process, or one of its threads, has used so far. */
function processCpu(pid: number, thread?: number): number {
  const stat = readFileSync(
    thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`,
    'utf8',
  );
  // Fields after the command name, which may itself hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** The process that answers a case; `postgres` when its database is a local PostgreSQL server. */
export interface MeasuredServer {
  pid: number;
  postgres: boolean;
}

/** Runs a case and adds what its requests cost in CPU. */
export async function withCpu(server: MeasuredServer, run: () => Promise<CaseResult>): Promise<CaseResult> {
  const databaseCpu = () => (server.postgres ? postgresCpu() : new Map<number, number>());
  // A Node server's main thread (its id is the process id) runs the event loop; its other
  // threads collect garbage and compile.
  const eventLoopCpu = () => processCpu(server.pid, server.pid);
  const before = {
    server: processCpu(server.pid),
    eventLoop: eventLoopCpu(),
    database: databaseCpu(),
    own: process.cpuUsage(),
  };
  const result = await run();
  // The thread is read after the process before the case and before it after, so that the
  // thread's share can never come out larger than the process's.
  const after = {
    eventLoop: eventLoopCpu(),
    server: processCpu(server.pid),
    own: process.cpuUsage(before.own),
  };
  // Backends that started during the case count from zero.
  const database = [...databaseCpu()].reduce(
    (sum, [pid, ms]) => sum + ms - (before.database.get(pid) ?? 0),
    0,
  );
  const perRequest = (ms: number) => Math.round((100 * ms) / Math.max(1, result.requests)) / 100;
  return {
    ...result,
    cpu: {
      serverMs: perRequest(after.server - before.server),
      eventLoopMs: perRequest(after.eventLoop - before.eventLoop),
      databaseMs: server.postgres ? perRequest(database) : null,
      loadGeneratorMs: perRequest((after.own.user + after.own.system) / 1000),
    },
  };
}
