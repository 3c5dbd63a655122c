/** search_standards: full-text search of the shipped corpus with highlighted excerpts and sources. */
import { STANDARDS } from '../../src/domain/standards/passages';
import { as, createCompany, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;

interface Excerpt {
  id: string;
  heading: string;
  excerpt: string;
  source: { title: string; publisher: string; section: string; url: string };
  rank: number;
}

async function search(q: string, limit?: number): Promise<Excerpt[]> {
  return (
    await as(t, co.readKey)
      .get(`/api/v1/standards/search?q=${encodeURIComponent(q)}${limit ? `&limit=${limit}` : ''}`)
      .expect(200)
  ).body.data;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

it('ships at least 60 passages, each citing a public-domain source', () => {
  expect(STANDARDS.length).toBeGreaterThanOrEqual(60);
  for (const p of STANDARDS) expect(p.source.url).toMatch(/^https:\/\/www\.(epa|osha|fema|cdc)\.gov\//);
});

it.each([
  ['category 3 water', 'cdc-sewage-contact'],
  ['drywall wicking', 'fema-wicking'],
  ['black water sewage', 'cdc-sewage-contact'],
  ['relative humidity 60 percent', 'epa-humidity-60'],
  ['moisture content wood', 'fema-moisture-content'],
  ['N95 respirator', 'epa-ppe-minimum'],
  ['carbon monoxide generator', 'osha-flood-co'],
  ['10 square feet mold', 'epa-size-10-square-feet'],
  ['dry within 48 hours', 'epa-dry-within-48-hours'],
  ['HVAC ducts mold', 'epa-ducts-flooded'],
])('finds passages for "%s"', async (q, expectedId) => {
  const results = await search(q, 10);
  expect(results.map((r) => r.id)).toContain(expectedId);
  expect(results[0].excerpt).toMatch(/\*\*[^*]+\*\*/);
  expect(results[0].source).toMatchObject({
    publisher: expect.stringMatching(/^(EPA|OSHA|FEMA|CDC)$/),
    url: expect.stringMatching(/^https:/),
  });
  const ranks = results.map((r) => r.rank);
  expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
});

it('falls back to passages holding some of the words of a longer question', async () => {
  const results = await search('what should my crew wear when tearing out moldy drywall in a basement');
  expect(results.length).toBeGreaterThan(0);
});

it('returns nothing for words the corpus lacks, and checks its parameters', async () => {
  expect(await search('xylophone quasar')).toEqual([]);
  await as(t, co.readKey).get('/api/v1/standards/search').expect(400);
  await as(t, co.readKey).get('/api/v1/standards/search?q=mold&limit=50').expect(400);
  expect((await search('mold', 3)).length).toBe(3);
});
