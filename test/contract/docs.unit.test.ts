/**
 * Docs that cannot drift: what the pages name is checked against the code, so that a rename, a
 * new test file, a new queue kind or a new setting fails here until the docs say so too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Every file under `dir` (relative to the repository), depth first. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).map((name) => `docs/${name}`)].filter(
  (file) => file.endsWith('.md'),
);

/** Files docs/adding-a-tool.md's worked example creates: they are not in the tree, on purpose. */
const WORKED_EXAMPLE = [/^src\/tools\/notes\/pin_note\.ts$/];

describe('the docs', () => {
  it('name only src/ files and folders that exist', () => {
    const missing: string[] = [];
    for (const page of pages)
      for (const [named] of read(page).matchAll(/(?<![\w./-])src\/[\w./-]*[\w/]/g)) {
        if (WORKED_EXAMPLE.some((example) => example.test(named))) continue;
        if (!existsSync(path.join(root, named))) missing.push(`${page}: ${named}`);
      }
    expect(missing).toEqual([]);
  });

  it('test/README.md lists every test file', () => {
    const map = read('test/README.md');
    const unlisted = filesUnder('test')
      .filter((file) => file.endsWith('.test.ts'))
      .filter((file) => !map.includes(`\`${path.basename(file, '.test.ts')}\``));
    expect(unlisted).toEqual([]);
  });

  it("architecture.md lists the job queue's kinds as src/node-services.ts registers them", () => {
    const services = read('src/node-services.ts');
    const registered = services.match(/queue\.register\(/g)?.length ?? 0;
    // A kind is a JobKind whose `name` is a constant of its own file: `name: OCR_PAGE`.
    const kinds = filesUnder('src').flatMap((file) => {
      const text = read(file);
      if (!/JobKind</.test(text)) return [];
      return [...text.matchAll(/\bname: ([A-Z_]+),/g)].flatMap(([, constant]) => {
        const value = text.match(new RegExp(`const ${constant} = '([\\w.]+)'`));
        return value ? [value[1]!] : [];
      });
    });
    expect(kinds).toHaveLength(registered);
    const architecture = read('docs/architecture.md');
    const section = architecture.slice(architecture.indexOf('Kinds are registered'));
    const listed = section
      .slice(0, section.indexOf('\n\n', section.indexOf('\n- ')))
      .split('\n')
      .filter((line) => line.startsWith('- '))
      .map((line) => line.match(/`([a-z]+\.[a-z]+)`/)?.[1]);
    expect(listed.sort()).toEqual(kinds.sort());
  });

  it('operations.md documents every setting src/platform/config.ts reads', () => {
    const config = read('src/platform/config.ts');
    const schema = config.slice(config.indexOf('const schema = z.object({'), config.indexOf('\n});'));
    const settings = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map(([, name]) => name!);
    expect(settings.length).toBeGreaterThan(40);
    const operations = read('docs/operations.md');
    expect(settings.filter((name) => !operations.includes(`\`${name}\``))).toEqual([]);
  });

  it("adding-a-tool.md's migration advice names no fixed number", () => {
    // The example would go stale with the next migration: it says "the next number" instead.
    expect(read('docs/adding-a-tool.md')).not.toMatch(/migrations\/\d{3}_|after `\d{3}_/);
  });

  it('README.md is at most 200 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(200);
  });
});

const HANDLER_LINES = 120;

describe('handlers', () => {
  it(`are at most ${HANDLER_LINES} lines: their rules live in the domain`, () => {
    const handlers = filesUnder('src/tools').filter((file) => path.dirname(file) !== 'src/tools');
    const lines = (file: string) => read(file).trimEnd().split('\n').length;
    const over = handlers
      .filter((file) => lines(file) > HANDLER_LINES)
      .map((file) => `${file}: ${lines(file)} lines`);
    expect(over).toEqual([]);
  });
});
