/**
 * The SDK as a third party meets it: packed by the steps of sdk/README.md, installed from the
 * tarball into a scratch project, the README's example type-checked against the installed
 * package and run against a service.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCompany, startApp, type TestApp } from '../support/app';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const readme = readFileSync(path.join(root, 'sdk', 'README.md'), 'utf8');
let t: TestApp;
let scratch: string;

beforeAll(async () => {
  t = await startApp();
  scratch = mkdtempSync(path.join(os.tmpdir(), 'jms-sdk-'));
});
afterAll(async () => {
  await t.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('packs, installs from the tarball, type-checks and runs the README example', async () => {
  // The README's steps: `npm pack` in sdk/ (its prepack builds with TypeScript).
  expect(readme).toContain('cd sdk && npm pack');
  await run('npm', ['pack', '--pack-destination', scratch], { cwd: path.join(root, 'sdk') });
  const tarball = readdirSync(scratch).find((name) => /^jobs-service-sdk-\d+\.\d+\.\d+\.tgz$/.test(name));
  expect(tarball).toBeDefined();
  expect(readme).toMatch(/npm install \.\/path\/to\/jobs-service-sdk-x\.y\.z\.tgz/);

  // A scratch ESM project. openapi-fetch comes from this repository's node_modules, so the test
  // needs no registry; the SDK itself is installed from the tarball, as a user would.
  writeFileSync(
    path.join(scratch, 'package.json'),
    JSON.stringify({
      name: 'scratch',
      private: true,
      type: 'module',
      dependencies: { 'openapi-fetch': `file:${path.join(root, 'node_modules', 'openapi-fetch')}` },
    }),
  );
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: scratch });

  const example = /```ts\n([\s\S]*?)```/.exec(readme)![1];
  writeFileSync(path.join(scratch, 'example.ts'), example);
  writeFileSync(
    path.join(scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        typeRoots: [path.join(root, 'node_modules', '@types')],
        types: ['node'],
      },
      files: ['example.ts'],
    }),
  );
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', '.'], { cwd: scratch }).catch((error: { stdout: string }) => {
    throw new Error(`the README example does not type-check:\n${error.stdout}`);
  });

  const co = await createCompany(t);
  const { stdout } = await run(process.execPath, ['example.js'], {
    cwd: scratch,
    env: { ...process.env, JMS_URL: t.url, JMS_KEY: co.writeKey },
  });
  expect(stdout).toMatch(/created #\d+/);

  // The README's CommonJS line works too.
  const cjs = /^(const \{[^}]+\} = require\('@jobs-service\/sdk'\);)$/m.exec(readme)![1];
  const required = await run(
    process.execPath,
    ['-e', `${cjs} console.log(typeof createJobsClient, typeof createAdminClient)`],
    { cwd: scratch },
  );
  expect(required.stdout.trim()).toBe('function function');
}, 60000);
