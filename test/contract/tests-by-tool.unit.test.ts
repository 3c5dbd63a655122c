/**
 * Tests found by tool: every operation of the spec has a test file named after its operationId
 * (`test/<area>/<operationId>.test.ts`) or a `describe` whose title names it, so that
 * `npm run -s jest -- -t <operationId>` or a look at the file names finds a tool's tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import spec from '../../src/generated/openapi.json';

const root = path.resolve(__dirname, '../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * The titles of `describe(…)`, `describe.each(…)(…)` and the like: a literal first argument, in
 * which `${NAME}` stands for a string constant of the file (a title too long for one line).
 */
function describeTitles(source: string): string[] {
  const constants = new Map(
    [...source.matchAll(/^const (\w+) =\s*'([^']*)';/gm)].map(([, name, value]) => [name!, value!]),
  );
  const titles = /\bdescribe(?:\.\w+)*(?:\([^()]*\))?\(\s*(['"`])((?:(?!\1).)*)\1/g;
  return [...source.matchAll(titles)].map(([, , title]) =>
    title!.replace(/\$\{(\w+)\}/g, (_, name: string) => constants.get(name) ?? ''),
  );
}

const operationIds = Object.values(spec.paths as Record<string, Record<string, { operationId?: string }>>)
  .flatMap((methods) => Object.values(methods))
  .flatMap((operation) => (operation.operationId ? [operation.operationId] : []));

describe('tests found by tool', () => {
  it('every operationId has a test file named after it or a describe naming it', () => {
    const files = testFiles(path.join(root, 'test'));
    const named = new Set(files.map((file) => path.basename(file).split('.')[0]));
    const words = new Set(
      files
        .flatMap((file) => describeTitles(readFileSync(file, 'utf8')))
        .flatMap((title) => title.split(/[^\w]+/)),
    );
    expect(operationIds.length).toBeGreaterThan(80);
    expect(operationIds.filter((id) => !named.has(id) && !words.has(id))).toEqual([]);
  });
});
