/**
 * The conformance suite's authorization server scenarios against the service's own OAuth server:
 * its metadata, and the authorization code grant. The grant scenario prints an authorization URL
 * for a person to open and waits for the redirect on its own callback port; Chromium opens it
 * here and approves on the approval page with the run's write key, as a person would. The client
 * it uses is registered first (dynamic registration) with that callback as its redirect_uri.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const TIMEOUT_MS = 90_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface AuthorizationOutcome {
  scenario: string;
  passed: number;
  failed: string[];
}

interface Check {
  id: string;
  name?: string;
  status: string;
  errorMessage?: string;
}

async function registerClient(serviceUrl: string, redirectUri: string): Promise<string> {
  const res = await fetch(`${serviceUrl}/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance suite',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    }),
  });
  if (res.status !== 201) throw new Error(`POST /register answered ${res.status}: ${await res.text()}`);
  return String(((await res.json()) as { client_id: string }).client_id);
}

/** Approves in Chromium: the key, write, Approve; the suite's callback receives the code. */
async function approve(url: string, key: string): Promise<void> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.fill('#key', key);
    await page.check('input[value="write"]');
    await Promise.all([page.waitForURL((target) => target.pathname === '/callback'), page.click('#approve')]);
  } finally {
    await browser.close();
  }
}

/** Every check the scenarios saved under `dir`, by scenario. */
function savedChecks(dir: string): Map<string, Check[]> {
  const found = new Map<string, Check[]>();
  if (!existsSync(dir)) return found;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name, 'checks.json');
    if (existsSync(file)) found.set(name, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  }
  return found;
}

export async function runAuthorizationScenarios(options: {
  node24: string;
  cli: string;
  serviceUrl: string;
  key: string;
  callbackPort: number;
  work: string;
}): Promise<AuthorizationOutcome[]> {
  const { node24, cli, serviceUrl, key, callbackPort, work } = options;
  const clientId = await registerClient(serviceUrl, `http://127.0.0.1:${callbackPort}/callback`);
  const dir = path.join(work, 'authorization');
  const args = [
    cli,
    'authorization',
    '--url',
    `${serviceUrl}/`,
    '--client-id',
    clientId,
    '--resource',
    `${serviceUrl}/mcp`,
    '--port',
    String(callbackPort),
    '-o',
    dir,
  ];
  const child = spawn(node24, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(path.join(work, 'authorization.log'));
  let output = '';
  let approving: Promise<void> | null = null;
  const approvals: Error[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      log.write(chunk);
      const url = /^(http\S+\/authorize\?\S+)$/m.exec(output)?.[1];
      if (url && !approving)
        approving = approve(url, key).catch((error: Error) => void approvals.push(error));
    });
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  log.end();
  await approving;
  const outcomes = [...savedChecks(dir)].map(([name, checks]) => ({
    scenario: name.replace(/^authorization-server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, ''),
    passed: checks.filter((check) => check.status === 'SUCCESS').length,
    failed: checks
      .filter((check) => check.status === 'FAILURE')
      .map((check) => `${check.name ?? check.id}: ${check.errorMessage ?? 'failed'}`),
  }));
  if (outcomes.length === 0)
    throw new Error(
      `the authorization scenarios saved no results (exit ${code}; see authorization.log)${approvals.length ? `; approving failed: ${approvals[0].message}` : ''}`,
    );
  return outcomes;
}
