/**
 * The official MCP conformance suites (every server scenario of @modelcontextprotocol/conformance,
 * the pinned version and the newest) against the service as `npm start` runs it: a fresh PGlite
 * data directory, a company and a write key made through the admin API, and the header-adding
 * proxy in front (the suites cannot send a key).
 *
 * Each suite runs in every protocol era it can speak (./suites.ts says how each chooses it): the
 * pinned one in 2025-11-25, the newest in 2025-11-25 and 2026-07-28 (its extension scenarios in
 * 2026-07-28). The outcome is compared with the suite's expected failures
 * (./expected-failures/<suite>.json: scenario → why it cannot pass on a tools-only server, or the
 * single checks that cannot and why): exit 1 when a scenario fails that is not listed, when a
 * listed failure passes (the list is stale), when the list names a scenario the suite does not
 * have, or when a required scenario (REQUIRED) is excused whole or did not run.
 *
 * Then the MCP inspector lists the tools with `--strict` in each era (`--protocol-era legacy` and
 * `modern`; the proxy confirms the revision each spoke): any schema portability finding (error or
 * warning, such as a `type` array) fails the run. Last, the authorization server scenarios
 * (./authorization.ts, of the newest suite) must all pass.
 *
 * Started by run.sh, which installs the pinned Node 24, the suites and the inspector and sets
 * CONFORMANCE_NODE, CONFORMANCE_CLI (pinned), CONFORMANCE_NEWEST_CLI and CONFORMANCE_INSPECTOR.
 * The per-key rate limit is RATE_LIMIT_PER_MINUTE / RATE_LIMIT_BURST when they are set, else high
 * enough not to matter. A results table (scenario × suite × era) is printed and kept in the work
 * directory as results.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startHeaderProxy, type HeaderProxy } from './proxy';
import { runAuthorizationScenarios, type AuthorizationOutcome } from './authorization';
import {
  judge,
  listProblems,
  parseScenarioList,
  savedChecks,
  type Era,
  type ExpectedFailure,
  type ListedScenario,
  type Outcome,
} from './suites';

const ROOT = path.resolve(__dirname, '../..');
/** A whole era of a suite runs in one process; the newest suite also times each scenario out at 30 s. */
const SUITE_RUN_TIMEOUT_MS = 10 * 60_000;
const SCENARIO_TIMEOUT_MS = 60_000;
const LEGACY: Era = '2025-11-25';
const MODERN: Era = '2026-07-28';
// Scenarios this service must pass in that era whatever the list says: the protocol it speaks, its
// tools, caching and the transport's protection. A list may excuse single checks of them (a fixture
// tool the suite probes with, a prompts or resources list), never the whole scenario.
// (tools-call-error calls a fixture tool this server does not have: an unknown tool is a protocol error here.)
const REQUIRED_2025 = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const REQUIRED: Record<string, Partial<Record<Era, string[]>>> = {
  pinned: { [LEGACY]: REQUIRED_2025 },
  newest: {
    [LEGACY]: REQUIRED_2025,
    [MODERN]: [
      'server-stateless',
      'tools-list',
      'caching',
      'http-header-validation',
      'dns-rebinding-protection',
    ],
  },
};
/** The authorization server scenarios (of the newest suite), all of which must pass. */
const AUTHORIZATION_SCENARIOS = ['authorization-server-metadata-endpoint', 'authorization-code-grant'];

interface Suite {
  name: 'pinned' | 'newest';
  cli: string;
  version: string;
  scenarios: ListedScenario[];
  expected: Record<string, ExpectedFailure>;
}

/** One process of a suite: the scenarios it runs in one era, and its arguments for that. */
interface SuiteRun {
  suite: Suite;
  era: Era;
  scenarios: string[];
  args: string[];
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: start this through test/conformance/run.sh`);
  return value;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a command to its end (or kills it after `timeoutMs`); its output goes to `log`. */
function run(
  command: string,
  args: string[],
  log: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const file = createWriteStream(log);
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        file.write(chunk);
      });
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      file.end();
      resolve({ code, output, timedOut });
    });
  });
}

async function waitForHealth(url: string, service: ChildProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (service.exitCode !== null) throw new Error(`the service exited with code ${service.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the service did not answer /healthz within 90 s');
}

async function admin(
  url: string,
  token: string,
  route: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/admin/v1${route}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201)
    throw new Error(`POST /admin/v1${route} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A write key of a new company's first team member, made as an operator would. */
async function writeKey(url: string, token: string): Promise<string> {
  const company = await admin(url, token, '/companies', { name: 'Conformance Restoration', credits: 5 });
  const person = await admin(url, token, `/companies/${company.id}/team`, {
    name: 'Casey Conformance',
    role: 'Owner',
  });
  const key = await admin(url, token, `/companies/${company.id}/keys`, {
    person_id: person.id,
    scope: 'write',
  });
  return String(key.key);
}

/** The suite's server scenarios (`list --server`), its version and its expected failures. */
async function loadSuite(name: Suite['name'], cli: string, node24: string, work: string): Promise<Suite> {
  const listed = await run(node24, [cli, 'list', '--server'], path.join(work, `${name}-list.log`), 30_000);
  const scenarios = parseScenarioList(listed.output);
  if (listed.code !== 0 || scenarios.length === 0)
    throw new Error(`cannot list the ${name} suite's scenarios:\n${listed.output}`);
  const version = (
    await run(node24, [cli, '--version'], path.join(work, `${name}-version.log`), 30_000)
  ).output.trim();
  const file = path.join(__dirname, 'expected-failures', `${name}.json`);
  const expected = JSON.parse(readFileSync(file, 'utf8')) as Record<string, ExpectedFailure>;
  return { name, cli, version, scenarios, expected };
}

/** The processes that run every server scenario of a suite in each era it can speak (./suites.ts). */
function suiteRuns(suite: Suite): SuiteRun[] {
  if (suite.name === 'pinned')
    return [{ suite, era: LEGACY, scenarios: suite.scenarios.map((s) => s.name), args: ['--suite', 'all'] }];
  const on = (era: Era) => suite.scenarios.filter((s) => s.tags.includes(era)).map((s) => s.name);
  const extensions = suite.scenarios.filter((s) => s.tags.includes('extension')).map((s) => s.name);
  return [
    { suite, era: LEGACY, scenarios: on(LEGACY), args: ['--suite', 'all', '--spec-version', LEGACY] },
    { suite, era: MODERN, scenarios: on(MODERN), args: ['--suite', 'all', '--spec-version', MODERN] },
    // On no revision, so `--suite all --spec-version` leaves them out: one at a time, forced.
    ...extensions.map((scenario) => ({
      suite,
      era: MODERN,
      scenarios: [scenario],
      args: ['--scenario', scenario, '--spec-version', MODERN, '--force'],
    })),
  ];
}

async function runSuite(
  node24: string,
  { suite, era, scenarios, args }: SuiteRun,
  url: string,
  work: string,
) {
  const label = `${suite.name}-${era}${args.includes('--scenario') ? `-${scenarios[0]}` : ''}`;
  const dir = path.join(work, 'results', label);
  const ran = await run(
    node24,
    [suite.cli, 'server', '--url', url, ...args, '-o', dir],
    path.join(work, `${label}.log`),
    args.includes('--scenario') ? SCENARIO_TIMEOUT_MS : SUITE_RUN_TIMEOUT_MS,
  );
  return scenarios.map((scenario) => {
    const outcome = judge(suite.name, era, scenario, savedChecks(dir, scenario), suite.expected[scenario]);
    return ran.timedOut && outcome.result === 'fail'
      ? { ...outcome, note: `the suite timed out (${label}.log); ${outcome.note}` }
      : outcome;
  });
}

/**
 * The inspector's tool-schema portability findings in one era (`--strict` prints each one on
 * stderr), and a finding if the requests did not carry that era's revision.
 */
async function portabilityFindings(
  node24: string,
  inspector: string,
  proxy: HeaderProxy,
  era: 'legacy' | 'modern',
  work: string,
): Promise<string[]> {
  const before = new Map(proxy.protocolVersions);
  const listed = await run(
    node24,
    [
      inspector,
      '--cli',
      `${proxy.url}/mcp`,
      '--transport',
      'http',
      '--method',
      'tools/list',
      '--strict',
      '--protocol-era',
      era,
    ],
    path.join(work, `inspector-${era}.log`),
    SCENARIO_TIMEOUT_MS,
  );
  const spoken = [...proxy.protocolVersions]
    .filter(([version, count]) => count > (before.get(version) ?? 0))
    .map(([version]) => version);
  const findings = [...listed.output.matchAll(/^(Error|Warning): tool "([^"]+)"[\s\S]*?Issue: (.*)$/gm)].map(
    (match) => `inspector (${era}): ${match[1]} in ${match[2]}: ${match[3]}`,
  );
  const tools = (listed.output.match(/"name":/g) ?? []).length;
  console.log(
    `inspector: tools/list --strict --protocol-era ${era} (MCP-Protocol-Version ${spoken.join(', ')}): ${tools} tool names, ${findings.length} portability finding(s)${listed.code === 0 ? '' : `, exit ${listed.code}`}`,
  );
  // A 2025 client sends initialize without the header; every 2026-07-28 request carries it.
  const revision = era === 'modern' ? MODERN : LEGACY;
  const allowed = era === 'modern' ? [MODERN] : ['none', LEGACY];
  if (!spoken.includes(revision) || spoken.some((version) => !allowed.includes(version)))
    findings.push(
      `inspector (${era}): its requests said MCP-Protocol-Version ${spoken.join(', ')}, not ${revision}`,
    );
  if (listed.code !== 0 && findings.length === 0)
    return [`inspector (${era}): exited with ${listed.code} (see inspector-${era}.log)`];
  if (tools === 0) findings.push(`inspector (${era}): listed no tools (see inspector-${era}.log)`);
  return findings;
}

const CELL: Record<Outcome['result'], string> = {
  pass: 'pass',
  'not applicable': 'n/a',
  'expected failure': 'expected failure',
  fail: '**FAIL**',
  'unexpected pass': '**unexpected pass**',
};

/** scenario × (suite, era), as a Markdown table: the form docs/tools.md keeps it in. */
function resultsTable(suites: Suite[], outcomes: Outcome[]): string {
  const columns = suites.flatMap((suite) =>
    [...new Set(outcomes.filter((o) => o.suite === suite.name).map((o) => o.era))].map((era) => ({
      suite,
      era,
    })),
  );
  const scenarios = [...new Set(outcomes.map((o) => o.scenario))];
  const head = `| scenario | ${columns.map(({ suite, era }) => `${suite.name} ${suite.version}, ${era}`).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---').join('|')}|`;
  const rows = scenarios.map((scenario) => {
    const cells = columns.map(({ suite, era }) => {
      const outcome = outcomes.find(
        (o) => o.suite === suite.name && o.era === era && o.scenario === scenario,
      );
      return outcome ? CELL[outcome.result] : '—';
    });
    return `| ${scenario} | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...rows].join('\n');
}

function printOutcomes(outcomes: Outcome[]): void {
  const width = Math.max(...outcomes.map((o) => o.scenario.length));
  for (const o of outcomes) {
    const counts = `${o.passed}✓ ${o.failed}✗ ${o.warnings}⚠`;
    console.log(
      `${o.suite.padEnd(6)} ${o.era}  ${o.scenario.padEnd(width)}  ${o.result.padEnd(16)}  ${counts.padEnd(10)}  ${o.note.slice(0, 240)}`,
    );
  }
}

/** What fails the run among the outcomes: unlisted failures, stale entries, required scenarios not passing. */
function outcomeProblems(suites: Suite[], outcomes: Outcome[]): string[] {
  const problems: string[] = [];
  for (const o of outcomes) {
    const where = `${o.suite} ${o.era} ${o.scenario}`;
    if (o.result === 'fail') problems.push(`${where} failed: ${o.note}`);
    if (o.result === 'unexpected pass') problems.push(`${where}: ${o.note}`);
  }
  for (const suite of suites)
    for (const [era, names] of Object.entries(REQUIRED[suite.name]))
      for (const name of names ?? []) {
        const outcome = outcomes.find((o) => o.suite === suite.name && o.era === era && o.scenario === name);
        if (!outcome || outcome.result === 'not applicable')
          problems.push(
            `${suite.name} ${era} ${name} is required and did not run (${outcome?.note ?? 'not listed by the suite'})`,
          );
      }
  return problems;
}

async function main(): Promise<number> {
  const node24 = required('CONFORMANCE_NODE');
  const inspector = required('CONFORMANCE_INSPECTOR');
  const work = mkdtempSync(path.join(os.tmpdir(), 'jms-conformance-'));
  const dataDir = path.join(work, 'data');
  const started = Date.now();

  const suites = [
    await loadSuite('pinned', required('CONFORMANCE_CLI'), node24, work),
    await loadSuite('newest', required('CONFORMANCE_NEWEST_CLI'), node24, work),
  ];
  const problems = suites.flatMap((suite) =>
    listProblems(
      suite.name,
      suite.expected,
      suite.scenarios.map((s) => s.name),
      Object.values(REQUIRED[suite.name]).flat() as string[],
    ),
  );

  const [servicePort, proxyPort] = [await freePort(), await freePort()];
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  const adminToken = randomBytes(24).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    PUBLIC_URL: serviceUrl,
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    DEMO_SEED: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    RATE_LIMIT_PER_MINUTE: process.env.RATE_LIMIT_PER_MINUTE ?? '1000000',
    RATE_LIMIT_BURST: process.env.RATE_LIMIT_BURST ?? '1000000',
    // The suites are pointed at the proxy, so the names they use (its port) are the service's too.
    MCP_ALLOWED_HOSTS: `127.0.0.1:${proxyPort},localhost:${proxyPort}`,
  };
  // Always the embedded database of this run, never a shared server or its counters.
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'MCP_ALLOWED_ORIGINS']) delete env[name];

  const serviceLog = path.join(work, 'service.log');
  const service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serviceOut = createWriteStream(serviceLog);
  service.stdout.pipe(serviceOut);
  service.stderr.pipe(serviceOut);
  let proxy: HeaderProxy | null = null;
  const outcomes: Outcome[] = [];
  let authorization: AuthorizationOutcome[] = [];
  let status429 = 0;
  try {
    await waitForHealth(serviceUrl, service);
    const key = await writeKey(serviceUrl, adminToken);
    proxy = await startHeaderProxy(serviceUrl, { authorization: `Bearer ${key}` }, proxyPort);
    const limits = `RATE_LIMIT_PER_MINUTE=${env.RATE_LIMIT_PER_MINUTE} RATE_LIMIT_BURST=${env.RATE_LIMIT_BURST}`;
    console.log(
      `${suites.map((s) => `${s.name} suite ${s.version}: ${s.scenarios.length} server scenarios`).join('; ')}; against ${proxy.url}/mcp (service ${serviceUrl}, ${limits})`,
    );
    for (const suiteRun of suites.flatMap(suiteRuns))
      outcomes.push(...(await runSuite(node24, suiteRun, `${proxy.url}/mcp`, work)));
    status429 = proxy.statuses.get(429) ?? 0;
    for (const era of ['legacy', 'modern'] as const)
      problems.push(...(await portabilityFindings(node24, inspector, proxy, era, work)));
    authorization = await runAuthorizationScenarios({
      node24,
      cli: required('CONFORMANCE_NEWEST_CLI'),
      serviceUrl,
      key,
      callbackPort: await freePort(),
      work,
    });
  } finally {
    await proxy?.close();
    if (service.exitCode === null) {
      const exited = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      // It finishes requests in flight and closes the database; a hang must not hang CI.
      const timer = setTimeout(() => service.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }

  printOutcomes(outcomes);
  const table = resultsTable(suites, outcomes);
  console.log(`\n${table}`);
  const by = (result: Outcome['result']) => outcomes.filter((o) => o.result === result).length;
  console.log(
    `\npass ${by('pass')}, not applicable ${by('not applicable')}, expected failure ${by('expected failure')}, fail ${by('fail')}, unexpected pass ${by('unexpected pass')}; ` +
      `${status429} answer(s) were 429; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  writeFileSync(path.join(work, 'summary.json'), JSON.stringify(outcomes, null, 2));
  writeFileSync(path.join(work, 'results.md'), `${table}\n`);
  for (const o of authorization)
    console.log(
      `authorization: ${o.scenario}  ${o.failed.length ? 'fail' : 'pass'}  ${o.passed}✓ ${o.failed.length}✗  ${o.failed.join('; ')}`,
    );
  for (const name of AUTHORIZATION_SCENARIOS) {
    const outcome = authorization.find((o) => o.scenario === name);
    if (!outcome) problems.push(`authorization scenario ${name} did not run`);
    else if (outcome.failed.length > 0 || outcome.passed === 0)
      problems.push(`authorization scenario ${name} failed: ${outcome.failed.join('; ')}`);
  }
  problems.push(...outcomeProblems(suites, outcomes));
  if (problems.length > 0) {
    console.error(
      `\nconformance FAILED:\n${problems.map((p) => `  - ${p}`).join('\n')}\nlogs and results: ${work}`,
    );
    return 1;
  }
  if (!process.env.CONFORMANCE_KEEP) rmSync(work, { recursive: true, force: true });
  else console.log(`logs and results: ${work}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
