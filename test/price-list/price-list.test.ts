/** search_price_list and get_price_list_item: ranking, regions, near matches. */
import { PRICE_LIST } from '../../src/domain/price-list/price-list';
import { as, createCompany, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;

interface Item {
  code: string;
  description: string;
  unit_price_cents: number;
  per_day: boolean;
  region: { code: string | null; factor: number };
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

it('ships a catalog of at least 150 items with unique codes', () => {
  expect(PRICE_LIST.length).toBeGreaterThanOrEqual(150);
  expect(new Set(PRICE_LIST.map((i) => i.code)).size).toBe(PRICE_LIST.length);
  expect(PRICE_LIST.every((i) => i.per_day === (i.unit === 'DAY'))).toBe(true);
});

describe('search_price_list', () => {
  it('ranks items holding every word first', async () => {
    const res = await as(t, co.readKey).get('/api/v1/price-list?q=lgr%20dehumidifier').expect(200);
    const codes = (res.body.data as Item[]).map((i) => i.code);
    expect(codes.slice(0, 3).every((code) => code.startsWith('DRY-DH-LGR'))).toBe(true);
    expect(codes).toContain('DRY-DH-CONV');
    expect(codes.indexOf('DRY-DH-CONV')).toBeGreaterThan(2);
  });

  it('finds by code, narrows by category and pages', async () => {
    expect(
      (await as(t, co.readKey).get('/api/v1/price-list?q=dem-dw-2ft').expect(200)).body.data[0].code,
    ).toBe('DEM-DW-2FT');
    const drying = (
      await as(t, co.readKey)
        .get('/api/v1/price-list?q=per%20day&category=drying%20equipment&limit=100')
        .expect(200)
    ).body.data as Item[];
    expect(drying.length).toBeGreaterThan(5);
    expect(drying.every((i) => i.code.startsWith('DRY-'))).toBe(true);
    const first = await as(t, co.readKey).get('/api/v1/price-list?q=remove&limit=5').expect(200);
    const second = await as(t, co.readKey)
      .get(`/api/v1/price-list?q=remove&limit=5&cursor=${first.body.next_cursor}`)
      .expect(200);
    const codes = [...first.body.data, ...second.body.data].map((i: Item) => i.code);
    expect(new Set(codes).size).toBe(10);
    expect((await as(t, co.readKey).get('/api/v1/price-list?q=zzzqqq').expect(200)).body).toEqual({
      data: [],
      next_cursor: null,
    });
  });

  it('prices for a region: the company region by default, another on request', async () => {
    const item = PRICE_LIST.find((i) => i.code === 'DRY-AM-STD')!;
    const national = (await as(t, co.readKey).get('/api/v1/price-list?q=DRY-AM-STD').expect(200)).body
      .data[0] as Item;
    expect(national).toMatchObject({
      unit_price_cents: item.base_price_cents,
      region: { code: null, factor: 1 },
    });
    const ca = (await as(t, co.readKey).get('/api/v1/price-list?q=DRY-AM-STD&region=ca').expect(200)).body
      .data[0] as Item;
    const ms = (await as(t, co.readKey).get('/api/v1/price-list?q=DRY-AM-STD&region=MS').expect(200)).body
      .data[0] as Item;
    expect(ca.region.code).toBe('CA');
    expect(ca.unit_price_cents).toBe(
      Math.floor((2 * item.base_price_cents * Math.round(ca.region.factor * 100) + 100) / 200),
    );
    expect(ca.unit_price_cents).toBeGreaterThan(item.base_price_cents);
    expect(ms.unit_price_cents).toBeLessThan(item.base_price_cents);
    await as(t, co.readKey).get('/api/v1/price-list?q=fan&region=California').expect(400);
  });
});

describe('get_price_list_item', () => {
  it('returns several items at once, repeated or comma separated', async () => {
    const res = await as(t, co.readKey)
      .get('/api/v1/price-list/items?codes=DRY-AM-STD,WTR-EXT-CP&codes=mld-encap')
      .expect(200);
    expect((res.body.items as Item[]).map((i) => i.code)).toEqual(['DRY-AM-STD', 'WTR-EXT-CP', 'MLD-ENCAP']);
    expect(res.body.not_found).toEqual([]);
    expect(
      (await as(t, co.readKey).get('/api/v1/price-list/items?codes=DEM-PAD').expect(200)).body.items[0].code,
    ).toBe('DEM-PAD');
  });

  it('answers unknown codes with near matches by spelling and by words', async () => {
    const res = await as(t, co.readKey)
      .get(
        '/api/v1/price-list/items?codes=DRY-AM-STX&codes=DRYAM-STD&codes=MLD%20ENCAPSULANT&codes=air%20scrubber',
      )
      .expect(200);
    const byCode = Object.fromEntries(
      (res.body.not_found as { code: string; near_matches: { code: string; matched_by: string }[] }[]).map(
        (n) => [n.code, n.near_matches],
      ),
    );
    expect(byCode['DRY-AM-STX'][0]).toMatchObject({ code: 'DRY-AM-STD', matched_by: 'spelling' });
    expect(byCode['DRYAM-STD'][0]).toMatchObject({ code: 'DRY-AM-STD', matched_by: 'spelling' });
    expect(byCode['MLD ENCAPSULANT'].map((m) => m.code)).toContain('MLD-ENCAP');
    expect(byCode['air scrubber'].map((m) => m.code)).toEqual(
      expect.arrayContaining(['DRY-AS-500', 'DRY-AS-1000']),
    );
    expect(res.body.items).toEqual([]);
  });

  it('needs at least one code', async () => {
    await as(t, co.readKey).get('/api/v1/price-list/items').expect(400);
  });
});
