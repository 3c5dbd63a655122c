/**
 * The MCP conformance suite (every server scenario of @modelcontextprotocol/conformance) against
 * the service as `npm start` runs it: a fresh PGlite data directory, a company and a write key
 * made through the admin API, and the header-adding proxy in front (the suite cannot send a key).
 *
 * Each scenario runs on its own, so that its result and the 429s the proxy saw during it are its
 * own. The outcome is compared with expected-failures.json (scenario → why it cannot pass on a
 * tools-only server): exit 1 when a scenario fails that is not listed there, when a listed one
 * passes (the list is stale), or when the list names a scenario the suite does not have.
 *
 * Then the MCP inspector lists the tools with `--strict`: any schema portability finding (error or
 * warning, such as a `type` array) fails the run. Last, the authorization server scenarios
 * (./authorization.ts) must all pass.
 *
 * Started by run.sh, which installs the pinned Node 24, suite and inspector and sets
 * CONFORMANCE_NODE, CONFORMANCE_CLI and CONFORMANCE_INSPECTOR. The per-key rate limit is RATE_LIMIT_PER_MINUTE / RATE_LIMIT_BURST when they
 * are set, else high enough not to matter.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startHeaderProxy, type HeaderProxy } from './proxy';
import { runAuthorizationScenarios, type AuthorizationOutcome } from './authorization';

const ROOT = path.resolve(__dirname, '../..');
const SCENARIO_TIMEOUT_MS = 60_000;
// Scenarios this service must pass whatever the list says: the protocol it speaks and the
// transport's protection. A reason in expected-failures.json cannot excuse them. (tools-call-error
// calls a fixture tool this server does not have: an unknown tool is a protocol error here.)
const REQUIRED = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
/** The authorization server scenarios (of the newer suite), all of which must pass. */
const AUTHORIZATION_SCENARIOS = ['authorization-server-metadata-endpoint', 'authorization-code-grant'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

interface Outcome {
  scenario: string;
  result: 'pass' | 'fail' | 'expected failure' | 'unexpected pass';
  passed: number;
  failed: number;
  warnings: number;
  status429: number;
  note: string;
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

/** The checks a scenario saved under `dir` (its `server-<scenario>-<time>/checks.json`), or null. */
function savedChecks(dir: string): Check[] | null {
  if (!existsSync(dir)) return null;
  const runDir = readdirSync(dir).find((name) => existsSync(path.join(dir, name, 'checks.json')));
  return runDir ? (JSON.parse(readFileSync(path.join(dir, runDir, 'checks.json'), 'utf8')) as Check[]) : null;
}

/** The inspector's tool-schema portability findings (`--strict` prints each one on stderr). */
async function portabilityFindings(
  node24: string,
  inspector: string,
  url: string,
  work: string,
): Promise<string[]> {
  const listed = await run(
    node24,
    [inspector, '--cli', url, '--transport', 'http', '--method', 'tools/list', '--strict'],
    path.join(work, 'inspector.log'),
    SCENARIO_TIMEOUT_MS,
  );
  const findings = [...listed.output.matchAll(/^(Error|Warning): tool "([^"]+)"[\s\S]*?Issue: (.*)$/gm)].map(
    (match) => `${match[1]} in ${match[2]}: ${match[3]}`,
  );
  const tools = (listed.output.match(/"name":/g) ?? []).length;
  console.log(
    `inspector: tools/list --strict: ${findings.length} portability finding(s)${listed.code === 0 ? '' : `, exit ${listed.code}`}`,
  );
  if (listed.code !== 0 && findings.length === 0)
    return [`the inspector exited with ${listed.code} (see inspector.log)`];
  if (tools === 0) return ['the inspector listed no tools (see inspector.log)'];
  return findings.map((finding) => `inspector: ${finding}`);
}

async function main(): Promise<number> {
  const node24 = required('CONFORMANCE_NODE');
  const cli = required('CONFORMANCE_CLI');
  const inspector = required('CONFORMANCE_INSPECTOR');
  const expected = JSON.parse(readFileSync(path.join(__dirname, 'expected-failures.json'), 'utf8')) as Record<
    string,
    string
  >;
  const work = mkdtempSync(path.join(os.tmpdir(), 'jms-conformance-'));
  const dataDir = path.join(work, 'data');
  const resultsDir = path.join(work, 'results');
  const started = Date.now();

  const listed = await run(node24, [cli, 'list', '--server'], path.join(work, 'list.log'), 30_000);
  const scenarios = [...listed.output.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
  if (listed.code !== 0 || scenarios.length === 0)
    throw new Error(`cannot list the scenarios:\n${listed.output}`);

  const problems: string[] = [];
  for (const name of Object.keys(expected)) {
    if (!scenarios.includes(name))
      problems.push(`expected-failures.json names "${name}", which the suite does not have`);
    if (REQUIRED.includes(name)) problems.push(`expected-failures.json lists "${name}", which must pass`);
  }

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
    // The suite is pointed at the proxy, so the names it uses (its port) are the service's too.
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
  try {
    await waitForHealth(serviceUrl, service);
    const key = await writeKey(serviceUrl, adminToken);
    proxy = await startHeaderProxy(serviceUrl, { authorization: `Bearer ${key}` }, proxyPort);
    const limits = `RATE_LIMIT_PER_MINUTE=${env.RATE_LIMIT_PER_MINUTE} RATE_LIMIT_BURST=${env.RATE_LIMIT_BURST}`;
    console.log(`${scenarios.length} scenarios against ${proxy.url}/mcp (service ${serviceUrl}, ${limits})`);

    for (const scenario of scenarios) {
      const before = proxy.statuses.get(429) ?? 0;
      const dir = path.join(resultsDir, scenario);
      const ran = await run(
        node24,
        [cli, 'server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '-o', dir],
        path.join(work, `${scenario}.log`),
        SCENARIO_TIMEOUT_MS,
      );
      const checks = savedChecks(dir);
      const count = (status: string) => (checks ?? []).filter((check) => check.status === status).length;
      const failedChecks = (checks ?? []).filter((check) => check.status === 'FAILURE');
      const ok = checks !== null && checks.length > 0 && failedChecks.length === 0;
      const why = ran.timedOut
        ? `timed out after ${SCENARIO_TIMEOUT_MS / 1000} s`
        : checks === null
          ? 'saved no results (see its log)'
          : failedChecks.map((check) => `${check.id}: ${check.errorMessage ?? 'failed'}`).join('; ');
      const reason = expected[scenario];
      outcomes.push({
        scenario,
        result: ok ? (reason ? 'unexpected pass' : 'pass') : reason ? 'expected failure' : 'fail',
        passed: count('SUCCESS'),
        failed: failedChecks.length,
        warnings: count('WARNING'),
        status429: (proxy.statuses.get(429) ?? 0) - before,
        note: ok
          ? reason
            ? 'passes now: remove it from expected-failures.json'
            : ''
          : reason
            ? reason
            : why,
      });
    }
    problems.push(...(await portabilityFindings(node24, inspector, `${proxy.url}/mcp`, work)));
    authorization = await runAuthorizationScenarios({
      node24,
      cli: required('CONFORMANCE_AUTHORIZATION_CLI'),
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

  const width = Math.max(...outcomes.map((o) => o.scenario.length));
  for (const o of outcomes) {
    const counts = `${o.passed}✓ ${o.failed}✗ ${o.warnings}⚠${o.status429 ? ` 429×${o.status429}` : ''}`;
    console.log(`${o.scenario.padEnd(width)}  ${o.result.padEnd(16)}  ${counts.padEnd(12)}  ${o.note}`);
  }
  const by = (result: Outcome['result']) => outcomes.filter((o) => o.result === result).length;
  const with429 = outcomes.filter((o) => o.status429 > 0).length;
  console.log(
    `\npass ${by('pass')}, expected failure ${by('expected failure')}, fail ${by('fail')}, unexpected pass ${by('unexpected pass')}; ` +
      `${with429} scenario(s) saw a 429; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  writeFileSync(path.join(work, 'summary.json'), JSON.stringify(outcomes, null, 2));
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

  for (const o of outcomes) {
    if (o.result === 'fail') problems.push(`${o.scenario} failed: ${o.note}`);
    if (o.result === 'unexpected pass')
      problems.push(`${o.scenario} passes but expected-failures.json lists it: remove it there`);
  }
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
