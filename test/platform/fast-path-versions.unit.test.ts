/**
 * The fast paths lean on the versions of knex, pg and the MCP SDK they were measured on
 * (leans-on.ts in each fast path's folder). A new version may keep the public interfaces and
 * still change what they cost or how they behave together: this fails until someone re-measures
 * (the command is in each README) and updates the versions, here and in package.json.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FAST_TRANSACTION_MEASURED_ON } from '../../src/infrastructure/db/fast-transaction/leans-on';
import { FAST_CALL_MEASURED_ON } from '../../src/transports/mcp/fast-call/leans-on';

const root = path.join(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const installed = (name: string) =>
  (
    JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

const fastPaths = [
  {
    path: 'the fast transaction',
    folder: 'src/infrastructure/db/fast-transaction',
    versions: FAST_TRANSACTION_MEASURED_ON,
  },
  { path: 'the MCP fast path', folder: 'src/transports/mcp/fast-call', versions: FAST_CALL_MEASURED_ON },
];
const cases = fastPaths.flatMap(({ path: what, folder, versions }) =>
  Object.entries(versions).map(([name, version]) => ({ what, folder, name, version: version as string })),
);

describe.each(cases)('$what leans on $name $version', ({ what, folder, name, version }) => {
  const advice = `re-measure (${folder}/README.md says how) and update ${folder}/leans-on.ts and package.json`;

  it('is the version installed', () => {
    const found = installed(name);
    if (found !== version)
      throw new Error(`${what} was measured on ${name} ${version}, but ${found} is installed; ${advice}.`);
  });

  it('is pinned to that exact version in package.json', () => {
    const declared = manifest.dependencies[name];
    if (declared !== version)
      throw new Error(
        `${what} was measured on ${name} ${version}, but package.json asks for "${declared}"; ${advice}.`,
      );
  });
});
