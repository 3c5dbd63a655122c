/** find_jobs: every search field, filters and stable paging (get_job is in get_job.test.ts). */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;
const numbers: Record<string, number> = {};

interface Summary {
  id: string;
  job_number: number;
  title: string;
}

async function find(query: string, key = co.readKey): Promise<Summary[]> {
  return (await as(t, key).get(`/api/v1/jobs?${query}`).expect(200)).body.data;
}
const numbersOf = (jobs: Summary[]) => jobs.map((j) => j.job_number);

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  const jobs = [
    {
      key: 'alvarez',
      customer_name: 'Maria Alvarez',
      customer_phone: '(555) 201-3344',
      address_line1: '412 Birch Lane',
      city: 'Springfield',
      carrier: 'State Farm',
      claim_number: 'SF-22-118734',
      loss_type: 'water',
    },
    {
      key: 'nguyen',
      customer_name: 'Tom Nguyen',
      customer_phone: '555.777.1212',
      customer_email: 'tom@example.com',
      address_line1: '88 Lakeview Dr',
      carrier: 'Allstate',
      claim_number: '0712-4455-21',
      title: 'Basement sewage backup',
    },
    {
      key: 'whitfield',
      customer_name: 'Grace Whitfield',
      customer_phone: '+1 555 888 9999',
      address_line1: '19 Oak Street',
      city: 'Chatham',
      loss_type: 'mold',
      claim_number: 'HO8841207',
      policy_number: 'PLC 77-0912',
    },
  ];
  for (const { key, ...body } of jobs)
    numbers[key] = (
      await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), ...body })
        .expect(201)
    ).body.job_number;
});
afterAll(() => t.close());

describe('find_jobs q', () => {
  it.each([
    ['a customer name fragment in any case', 'q=alVAR', ['alvarez']],
    ['a street', 'q=birch', ['alvarez']],
    ['a title', 'q=sewage%20backup', ['nguyen']],
    ['a claim number', 'q=SF-22-118734', ['alvarez']],
    ['claim digits', 'q=0712445521', ['nguyen']],
    ['a claim number without its punctuation', 'q=SF22118734', ['alvarez']],
    ['a claim number in lower case with other punctuation', 'q=sf.22.118734', ['alvarez']],
    ['a claim number stored without punctuation, asked with it', 'q=HO-88-41207', ['whitfield']],
    ['a policy number with its space and dash left out', 'q=plc770912', ['whitfield']],
    ['a carrier', 'q=allstate', ['nguyen']],
    ['an email', 'q=tom%40example', ['nguyen']],
    ['a phone as stored', 'q=(555)%20201-3344', ['alvarez']],
    ['a phone with dots', 'q=555.201.3344', ['alvarez']],
    ['a phone with no punctuation', 'q=5552013344', ['alvarez']],
    ['the end of a phone', 'q=201-3344', ['alvarez']],
    ['a phone with country code', 'q=%2B1%20555%20888%209999', ['whitfield']],
    ['several words, all needed', 'q=grace%20chatham', ['whitfield']],
    ['words that match no single job', 'q=grace%20allstate', []],
  ])('matches %s', async (_label, query, expected) => {
    expect(numbersOf(await find(query))).toEqual(expected.map((key) => numbers[key]).sort((a, b) => b - a));
  });

  it('says a compacted claim or policy number matched on claim or policy', async () => {
    const [alvarez] = (await as(t, co.readKey).get('/api/v1/jobs?q=SF22118734').expect(200)).body.data;
    expect(alvarez.matched_on).toEqual(['claim']);
    const [whitfield] = (await as(t, co.readKey).get('/api/v1/jobs?q=PLC770912').expect(200)).body.data;
    expect(whitfield.matched_on).toEqual(['policy']);
  });

  it('opens a job by #number, and a bare number also matches the job number', async () => {
    expect(numbersOf(await find(`q=%23${numbers.nguyen}`))).toEqual([numbers.nguyen]);
    expect(numbersOf(await find('q=%23999'))).toEqual([]);
    expect(numbersOf(await find(`q=${numbers.whitfield}`))).toContain(numbers.whitfield);
  });

  it('takes % and _ literally', async () => {
    expect(await find('q=%25')).toEqual([]);
    expect(await find('q=_')).toEqual([]);
  });
});

describe('find_jobs filters', () => {
  it('filters by status name in any case, and refuses an unknown status with the board', async () => {
    expect((await find('status=new')).length).toBe(3);
    expect(await find('status=Drying')).toEqual([]);
    expect(await find('status=cancelled')).toEqual([]);
    const res = await as(t, co.readKey).get('/api/v1/jobs?status=Nowhere').expect(422);
    expect(res.body.code).toBe('unknown_status');
    expect(res.body.valid_values[0]).toBe('New');
  });

  it('filters by photos and drying log', async () => {
    const jobId = (await find(`q=%23${numbers.alvarez}`))[0].id;
    await t.db('jobs').where({ id: jobId }).update({ photo_count: 4 });
    await t.db('drying_logs').insert({
      id: 'dry_test1',
      company_id: co.id,
      job_id: jobId,
      start_date: t.db.raw('current_date - 1'),
      planned_days: 5,
    });
    expect(numbersOf(await find('photos=with'))).toEqual([numbers.alvarez]);
    expect(numbersOf(await find('photos=without'))).toEqual([numbers.whitfield, numbers.nguyen]);
    expect(numbersOf(await find('drying=with'))).toEqual([numbers.alvarez]);
    expect(numbersOf(await find('drying=active'))).toEqual([numbers.alvarez]);
    expect(numbersOf(await find('drying=without'))).toEqual([numbers.whitfield, numbers.nguyen]);
    await t
      .db('drying_logs')
      .where({ id: 'dry_test1' })
      .update({ start_date: t.db.raw('current_date - 10') });
    expect(await find('drying=active')).toEqual([]);
  });

  it('filters by creation day in the company timezone (America/Chicago)', async () => {
    const [a, b] = await find('q=nguyen').then(async (n) => [n[0].id, (await find('q=whitfield'))[0].id]);
    await t.db('jobs').where({ id: a }).update({ created_at: '2026-01-10T05:30:00Z' }); // 23:30 on the 9th in Chicago
    await t.db('jobs').where({ id: b }).update({ created_at: '2026-01-10T06:30:00Z' }); // 00:30 on the 10th
    expect(numbersOf(await find('created_from=2026-01-10&created_to=2026-01-10'))).toEqual([
      numbers.whitfield,
    ]);
    expect(numbersOf(await find('created_to=2026-01-09'))).toEqual([numbers.nguyen]);
  });

  it('refuses bad filter values', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=ten',
      'photos=some',
      'drying=maybe',
      'created_from=yesterday',
      'cursor=nope',
      'sort=name',
    ]) {
      expect((await as(t, co.readKey).get(`/api/v1/jobs?${query}`).expect(400)).body.code).toBe(
        'invalid_request',
      );
    }
  });
});

describe('paging', () => {
  it('pages without duplicates or gaps while jobs are being created', async () => {
    const company = await createCompany(t);
    for (let i = 0; i < 20; i++)
      await as(t, company.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: `Pager ${i}` })
        .expect(201);
    const seen: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res: { body: { data: Summary[]; next_cursor: string | null } } = await as(t, company.readKey)
        .get(`/api/v1/jobs?limit=6${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200);
      seen.push(...numbersOf(res.body.data));
      cursor = res.body.next_cursor;
      await as(t, company.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Arrived while paging' })
        .expect(201);
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
  });
});
