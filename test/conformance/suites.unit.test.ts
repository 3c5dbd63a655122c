/**
 * How test/conformance/run.ts reads a suite's scenario list and judges a scenario's checks against
 * the expected failures: the verdicts the conformance run stands on.
 */
import { judge, listProblems, parseScenarioList, type Check } from './suites';

const success = (id: string): Check => ({ id, status: 'SUCCESS' });
const failure = (id: string): Check => ({ id, status: 'FAILURE', errorMessage: `${id} broke` });
const verdict = (checks: Check[] | null, expected?: Parameters<typeof judge>[4]) =>
  judge('newest', '2026-07-28', 'caching', checks, expected);

describe('parseScenarioList', () => {
  it('reads names with the revisions a suite lists them for, and without', () => {
    const output =
      'Server scenarios (test against a server):\n  - ping [2025-06-18,2025-11-25]\n  - tasks-lifecycle [extension]\n  - tools-list\n';
    expect(parseScenarioList(output)).toEqual([
      { name: 'ping', tags: ['2025-06-18', '2025-11-25'] },
      { name: 'tasks-lifecycle', tags: ['extension'] },
      { name: 'tools-list', tags: [] },
    ]);
  });
});

describe('judge', () => {
  it('passes a scenario whose checks pass, and fails one that saved nothing', () => {
    expect(verdict([success('a')]).result).toBe('pass');
    expect(verdict(null).result).toBe('fail');
  });

  it('calls a scenario that tested nothing (skipped checks beside the wire check) not applicable', () => {
    const checks = [
      { id: 'skills', status: 'SKIPPED', errorMessage: 'no skills extension' },
      success('wire-schema-valid'),
    ];
    expect(verdict(checks)).toMatchObject({ result: 'not applicable', note: 'no skills extension' });
  });

  it('excuses a whole scenario listed with a reason, and calls the entry stale once it passes', () => {
    expect(verdict([failure('a')], 'no prompts here').result).toBe('expected failure');
    expect(verdict([success('a')], 'no prompts here').result).toBe('unexpected pass');
  });

  it('excuses only the listed checks of a scenario listed check by check', () => {
    const entry = { reason: 'no prompts here', checks: ['prompts'] };
    expect(verdict([success('tools'), failure('prompts')], entry).result).toBe('expected failure');
    expect(verdict([failure('tools'), failure('prompts')], entry)).toMatchObject({
      result: 'fail',
      note: 'tools: tools broke',
    });
    expect(verdict([success('tools'), success('prompts'), failure('resources')], entry).result).toBe('fail');
    expect(verdict([success('tools'), success('prompts')], entry).result).toBe('unexpected pass');
  });
});

describe('listProblems', () => {
  it('refuses an entry for a scenario the suite lacks, and a required scenario excused whole', () => {
    const expected = { ghost: 'gone', caching: 'whole', ping: { reason: 'one check', checks: ['x'] } };
    expect(listProblems('newest', expected, ['caching', 'ping'], ['caching', 'ping'])).toEqual([
      'newest: the expected failures name "ghost", which the suite does not have',
      'newest: the expected failures excuse "caching" whole; it must pass (excuse single checks, with reasons)',
    ]);
  });
});
