/** The results table, the targets of the benchmark issue next to the figures, and the JSON file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CaseResult } from './measure';
import { MONTH_IN_ONE_REQUEST, ONE_NOTE, ONE_READING, READ_FULL_LOG, READINESS } from './drying';

export interface Report {
  db: 'postgres' | 'pglite';
  quick: boolean;
  jobs: number;
  startedAt: string;
  cases: CaseResult[];
  baseline: CaseResult;
  maxRssMb: number;
  notes: string[];
}

/** The issue's baseline: get_job's own lookup (its one query, shaped the same) on bare Express. */
export const BASELINE = 'baseline: the get_job lookup, bare';
/** get_job over HTTP measured in turns with its MCP cases, which their targets compare with it. */
export const GET_JOB_BESIDE_MCP = 'get_job by id (HTTP, in turns with MCP)';
/** Every row create_job writes, in one statement on bare Express: what this machine can write. */
export const BARE_CREATE = 'baseline: bare create, one statement';

const byName = (report: Report, name: string) => report.cases.find((c) => c.name === name);
const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

export interface Target {
  target: string;
  met: boolean;
  figure: string;
}

/** The targets: `npm run bench` fails when one is missed. Ratios compare cases of the same run. */
export function targets(report: Report): Target[] {
  const getJob = byName(report, 'get_job by id (HTTP)');
  const mcpGet = byName(report, 'get_job (MCP)');
  const mcpToken = byName(report, 'get_job (MCP, assistant token)');
  const mcpModern = byName(report, 'get_job (MCP 2026-07-28)');
  const create = byName(report, 'create_job, new operation_id');
  const replay = byName(report, 'create_job, replayed operation_id');
  const searches = report.cases.filter((c) => c.name.startsWith('find_jobs q='));
  const worstSearchP95 = Math.max(...searches.map((c) => c.p95));
  const rows: Target[] = [];
  if (getJob) {
    const rowOnly = byName(report, 'baseline: the job row only');
    rows.push({
      target: "get_job HTTP ≥ 70% of the bare lookup's req/s",
      met: getJob.rps >= report.baseline.rps * 0.7,
      figure: `${getJob.rps} vs ${report.baseline.rps} (${percent(getJob.rps, report.baseline.rps)})${rowOnly ? `; a bare query of the job row alone: ${rowOnly.rps} (${percent(getJob.rps, rowOnly.rps)})` : ''}`,
    });
    rows.push({
      target: 'get_job HTTP p99 ≤ 2× baseline p99',
      met: getJob.p99 <= report.baseline.p99 * 2,
      figure: `${getJob.p99} vs ${report.baseline.p99} ms`,
    });
  }
  // #30: an assistant's MCP call, with a key or with an OAuth access token, at least 60% of HTTP's
  // rate; #43: in the 2026-07-28 revision too. Compared with get_job over HTTP in the same turns.
  const httpBesideMcp = byName(report, GET_JOB_BESIDE_MCP) ?? getJob;
  for (const mcp of [mcpGet, mcpToken, mcpModern]) {
    if (httpBesideMcp && mcp)
      rows.push({
        target: `${mcp.name} ≥ 60% of HTTP req/s`,
        met: mcp.rps >= httpBesideMcp.rps * 0.6,
        figure: `${mcp.rps} vs ${httpBesideMcp.rps} (${percent(mcp.rps, httpBesideMcp.rps)})`,
      });
  }
  if (searches.length)
    rows.push({
      target: 'find_jobs q p95 < 50 ms',
      met: worstSearchP95 < 50,
      figure: `worst p95 ${worstSearchP95} ms`,
    });
  const bareCreate = byName(report, BARE_CREATE);
  if (create && bareCreate) {
    // The service answers on one thread: it cannot do more than one second of CPU a second.
    const ceiling = create.cpu
      ? `; at ${create.cpu.eventLoopMs} ms of the event loop's CPU a create, the service does at most ${Math.floor(1000 / create.cpu.eventLoopMs)}/s`
      : '';
    rows.push({
      target: "create_job ≥ 60% of the bare create's req/s",
      met: create.rps >= bareCreate.rps * 0.6,
      figure: `${create.rps} vs ${bareCreate.rps}/s (${percent(create.rps, bareCreate.rps)})${ceiling}`,
    });
  }
  if (replay && getJob)
    rows.push({
      target: 'replay no slower than get_job',
      met: replay.p50 <= getJob.p50 * 1.1,
      figure: `p50 ${replay.p50} vs ${getJob.p50} ms`,
    });
  rows.push(...dryingTargets(report));
  rows.push({ target: 'service RSS < 300 MB', met: report.maxRssMb < 300, figure: `${report.maxRssMb} MB` });
  return rows;
}

/** The drying log's targets; a request's cost is the CPU it takes of the service and the database. */
function dryingTargets(report: Report): Target[] {
  const month = byName(report, MONTH_IN_ONE_REQUEST);
  const reading = byName(report, ONE_READING);
  const note = byName(report, ONE_NOTE);
  const log = byName(report, READ_FULL_LOG);
  const cost = (c: CaseResult) => (c.cpu ? c.cpu.serverMs + (c.cpu.databaseMs ?? 0) : null);
  const rows = [];
  if (month)
    rows.push({
      target: '1,200 readings in one request p95 < 250 ms',
      met: month.p95 < 250,
      figure: `p95 ${month.p95} ms`,
    });
  if (reading && note) {
    const [one, other] = [cost(reading), cost(note)];
    const figure =
      one !== null && other !== null
        ? `${one.toFixed(2)} vs ${other.toFixed(2)} ms of CPU a request (${percent(one, other)})`
        : 'CPU not measured';
    rows.push({
      target: "one reading within 20% of add_note's cost",
      met: one !== null && other !== null && one <= other * 1.2,
      figure: `${figure}; ${reading.rps} vs ${note.rps}/s`,
    });
  }
  if (log)
    rows.push({
      target: 'get_drying_log of a 30-day log p95 < 30 ms',
      met: log.p95 < 30,
      figure: `p95 ${log.p95} ms, ${log.rps}/s`,
    });
  const readiness = byName(report, READINESS);
  if (readiness)
    rows.push({
      target: 'check_claim_readiness (30 days, 8 areas, 300 photos, a profile of 8 rules) p95 < 100 ms',
      met: readiness.p95 < 100,
      figure: `p95 ${readiness.p95} ms, ${readiness.rps}/s`,
    });
  return rows;
}

export function printReport(report: Report): void {
  const header = [
    'case',
    'req/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'errors',
    'non-2xx',
    '× base rps',
    '× base p99',
    'cpu ms: server',
    'loop',
    'db',
    'load',
  ];
  const ms = (value: number | null | undefined) =>
    value === null || value === undefined ? '–' : value.toFixed(2);
  const rows = [...report.cases, report.baseline].map((c) => [
    c.name,
    String(c.rps),
    String(c.p50),
    String(c.p95),
    String(c.p99),
    String(c.errors),
    String(c.non2xx),
    (c.rps / report.baseline.rps).toFixed(2),
    (c.p99 / report.baseline.p99).toFixed(2),
    ms(c.cpu?.serverMs),
    ms(c.cpu?.eventLoopMs),
    ms(c.cpu?.databaseMs),
    ms(c.cpu?.loadGeneratorMs),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(
    `\n${report.db}${report.quick ? ' (quick)' : ''}, ${report.jobs} jobs, service max RSS ${report.maxRssMb} MB`,
  );
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  const failures = [...report.cases, report.baseline].filter((c) => c.errors > 0 || c.non2xx > 0);
  if (failures.length) console.log(`\n!!! ERRORS in: ${failures.map((c) => c.name).join(', ')}`);
  for (const note of report.notes) console.log(`note: ${note}`);
  printTargets(targets(report));
}

/** The targets, the misses last, so that the end of the output says what failed. */
export function printTargets(checked: Target[]): void {
  console.log('\nTargets:');
  for (const t of checked.filter((c) => c.met)) console.log(`  met    ${t.target}: ${t.figure}`);
  for (const t of checked.filter((c) => !c.met)) console.log(`  MISSED ${t.target}: ${t.figure}`);
  const missed = checked.filter((c) => !c.met).length;
  console.log(missed ? `\n${missed} target${missed > 1 ? 's' : ''} MISSED` : '\nevery target met');
}

export function writeReport(report: Report): string {
  const dir = path.resolve(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(
    dir,
    `${report.startedAt.replace(/[:.]/g, '-')}-${report.db}${report.quick ? '-quick' : ''}.json`,
  );
  writeFileSync(file, `${JSON.stringify({ ...report, targets: targets(report) }, null, 2)}\n`);
  return file;
}
