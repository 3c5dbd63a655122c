/**
 * One conformance suite's server scenarios in one protocol era, and their judgement against the
 * suite's list of expected failures (./expected-failures/<suite>.json).
 *
 * How a suite chooses the era it speaks:
 * - 0.1.x (the pinned suite) connects with the official SDK's version 1 client, which negotiates
 *   2025-11-25 with this server; `--spec-version` only filters scenarios. So: 2025-11-25 only.
 * - 0.2.x (the newest) speaks the wire of `--spec-version` (2025-11-25: initialize and sessions
 *   as the server allows; 2026-07-28: stateless requests with `_meta`) and skips a scenario not
 *   on that revision. Extension scenarios (tasks, skills) are on no revision: `--force` runs them,
 *   at the wire given.
 * A whole era runs in one process of the suite (`--suite all`), as the suite runs itself; each
 * scenario still saves its own checks (`server-<scenario>-<time>/checks.json` under `-o`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  errorMessage?: string;
}

/** Why a scenario cannot pass here: the whole scenario, or only the named checks of it. */
export type ExpectedFailure = string | { reason: string; checks: string[] };

export type Era = '2025-11-25' | '2026-07-28';

export interface ListedScenario {
  name: string;
  /** The revisions the suite lists it for, or ['extension']. */
  tags: string[];
}

export type Result = 'pass' | 'not applicable' | 'expected failure' | 'fail' | 'unexpected pass';

export interface Outcome {
  suite: string;
  era: Era;
  scenario: string;
  result: Result;
  passed: number;
  failed: number;
  warnings: number;
  note: string;
}

/** Every check a suite adds to each scenario, whatever the scenario tests (0.2.x). */
const WIRE_SCHEMA_CHECK = 'wire-schema-valid';

/** `list --server` lines: `  - name [2025-06-18,2025-11-25]` (the tags are absent in old suites). */
export function parseScenarioList(output: string): ListedScenario[] {
  return [...output.matchAll(/^\s+- (\S+)(?: \[([^\]]*)\])?\s*$/gm)].map((match) => ({
    name: match[1],
    tags: match[2] ? match[2].split(',') : [],
  }));
}

/** The checks the scenario saved under `dir`, or null when it saved none. */
export function savedChecks(dir: string, scenario: string): Check[] | null {
  if (!existsSync(dir)) return null;
  const ownDir = new RegExp(
    `^(server-)?${scenario.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d{4}-\\d{2}-\\d{2}T`,
  );
  const found = readdirSync(dir).find(
    (name) => ownDir.test(name) && existsSync(path.join(dir, name, 'checks.json')),
  );
  return found ? (JSON.parse(readFileSync(path.join(dir, found, 'checks.json'), 'utf8')) as Check[]) : null;
}

function describe(checks: Check[]): string {
  return checks.map((check) => `${check.id}: ${check.errorMessage ?? 'failed'}`).join('; ');
}

/** A scenario's outcome: its checks against what the list says of it. */
export function judge(
  suite: string,
  era: Era,
  scenario: string,
  checks: Check[] | null,
  expected: ExpectedFailure | undefined,
): Outcome {
  const all = checks ?? [];
  const count = (status: string) => all.filter((check) => check.status === status).length;
  const failing = all.filter((check) => check.status === 'FAILURE');
  const base = {
    suite,
    era,
    scenario,
    passed: count('SUCCESS'),
    failed: failing.length,
    warnings: count('WARNING'),
  };
  const reason = typeof expected === 'string' ? expected : expected?.reason;
  if (checks === null || checks.length === 0)
    return {
      ...base,
      result: reason ? 'expected failure' : 'fail',
      note: reason ?? 'saved no results (see the log)',
    };
  // Only skipped and informational checks (beside the wire check): nothing here for it to test.
  const tested = all.some(
    (check) => check.id !== WIRE_SCHEMA_CHECK && ['SUCCESS', 'FAILURE', 'WARNING'].includes(check.status),
  );
  if (failing.length === 0) {
    const result = tested ? 'pass' : 'not applicable';
    if (!expected) return { ...base, result, note: result === 'pass' ? '' : describeSkipped(all) };
    return { ...base, result: 'unexpected pass', note: 'passes now: remove it from the expected failures' };
  }
  if (typeof expected === 'string') return { ...base, result: 'expected failure', note: expected };
  const excused = new Set(expected?.checks ?? []);
  const unexcused = failing.filter((check) => !excused.has(check.id));
  if (unexcused.length > 0) return { ...base, result: 'fail', note: describe(unexcused) };
  const failingIds = new Set(failing.map((check) => check.id));
  const nowPassing = [...excused].filter((id) => !failingIds.has(id));
  if (nowPassing.length > 0)
    return {
      ...base,
      result: 'unexpected pass',
      note: `${nowPassing.join(', ')} no longer fail${nowPassing.length === 1 ? 's' : ''}: remove from the expected failures`,
    };
  return { ...base, result: 'expected failure', note: `${failing.map((c) => c.id).join(', ')}: ${reason}` };
}

function describeSkipped(checks: Check[]): string {
  const skipped = checks.find((check) => check.status === 'SKIPPED' || check.status === 'INFO');
  return skipped?.errorMessage ?? skipped?.id ?? '';
}

/**
 * What is wrong with a list itself: a scenario the suite does not have, or a required scenario
 * excused whole (a required one may be excused only check by check).
 */
export function listProblems(
  suite: string,
  expected: Record<string, ExpectedFailure>,
  scenarios: string[],
  required: string[],
): string[] {
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(expected)) {
    if (!scenarios.includes(name))
      problems.push(`${suite}: the expected failures name "${name}", which the suite does not have`);
    if (required.includes(name) && typeof entry === 'string')
      problems.push(
        `${suite}: the expected failures excuse "${name}" whole; it must pass (excuse single checks, with reasons)`,
      );
  }
  return problems;
}
