/**
 * The benchmark works end to end in its quick mode (figures are not judged here). It has grown to
 * about two minutes on a quiet machine (2026-07-28 cases included): the limits leave room for a loaded one.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CaseResult } from '../../bench/measure';
import { MONTH_IN_ONE_REQUEST, ONE_NOTE, ONE_READING, READ_FULL_LOG, READINESS } from '../../bench/drying';
import { describeOnEmbedded } from '../support/databases';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const DRYING_CASES = [MONTH_IN_ONE_REQUEST, ONE_READING, ONE_NOTE, READ_FULL_LOG, READINESS];

describeOnEmbedded('npm run bench -- --quick', () => {
  it('runs every case with no errors and writes its results', async () => {
    const { DATABASE_URL: _unused, ...env } = process.env;
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bench/run.ts', '--quick', '--db', 'pglite'],
      { cwd: root, env, timeout: 270_000 },
    );
    const file = /written: (\S+\.json)/.exec(stdout)![1];
    const report = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as {
      cases: CaseResult[];
      baseline: CaseResult;
    };
    const names = report.cases.map((c) => c.name);
    for (const expected of [
      'get_job by id (HTTP)',
      'get_job by number (HTTP)',
      'find_jobs q=phone, other format',
      'create_job, new operation_id',
      'create_job, replayed operation_id',
      'list_changes polling with a cursor',
      'get_job (MCP)',
      'get_job (MCP, assistant token)',
      'find_jobs (MCP)',
      'get_job (MCP, official client)',
      'get_job (MCP 2026-07-28)',
      'get_job (MCP 2026-07-28, official client)',
      'baseline: the job row only',
      'baseline: bare create, one statement',
      ...DRYING_CASES,
    ]) {
      expect(names).toContain(expected);
    }
    for (const c of report.cases)
      expect({ name: c.name, errors: c.errors, non2xx: c.non2xx, measured: c.requests > 0 }).toEqual({
        name: c.name,
        errors: 0,
        non2xx: 0,
        measured: true,
      });
    // What each request cost: the server's process and event loop (PGlite's database runs inside it).
    for (const c of [...report.cases, report.baseline]) {
      expect({
        name: c.name,
        server: c.cpu!.serverMs > 0,
        loop: c.cpu!.eventLoopMs > 0 && c.cpu!.eventLoopMs <= c.cpu!.serverMs,
        database: c.cpu!.databaseMs,
      }).toEqual({ name: c.name, server: true, loop: true, database: null });
    }
    expect(report.baseline.requests).toBeGreaterThan(0);
    expect(stdout).toContain('Targets:');
    expect(stdout).toContain('quick run: the targets are judged in full runs only');
  }, 300_000);
});
