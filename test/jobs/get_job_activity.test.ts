/** get_job_activity: a job's history newest first, paged without duplicates; other companies' jobs and unknown people are refused. */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { MARIA, openJob } from '../support/jobs';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

const newJob = (key = co.writeKey, extra: Record<string, unknown> = {}) =>
  openJob(t, key, { ...MARIA, ...extra });

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

describe('get_job_activity', () => {
  it('pages the activity newest first without duplicates', async () => {
    const job = await newJob();
    for (let i = 0; i < 7; i++)
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${job.id}/notes`)
        .send({ operation_id: opId(), text: `note ${i}` })
        .expect(201);
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: {
        body: { data: { id: string; note: { text: string } | null }[]; next_cursor: string | null };
      } = await as(t, co.readKey)
        .get(`/api/v1/jobs/${job.id}/activity?kind=notes&limit=3${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200);
      seen.push(...page.body.data.map((e) => e.note!.text));
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(['note 6', 'note 5', 'note 4', 'note 3', 'note 2', 'note 1', 'note 0']);
  });

  it("gives each entry's time in UTC and on the company's clock", async () => {
    const tokyo = await createCompany(t, { timezone: 'Asia/Tokyo' });
    const job = await openJob(t, tokyo.writeKey, MARIA);
    const [entry] = (await as(t, tokyo.readKey).get(`/api/v1/jobs/${job.id}/activity`).expect(200)).body
      .data as { at: string; at_local: string }[];
    expect(entry.at_local).toMatch(/\+09:00$/);
    expect(Date.parse(entry.at_local)).toBe(Math.floor(Date.parse(entry.at) / 1000) * 1000);
  });

  it('answers 404 for a job of another company and 422 for a person who is not on the team', async () => {
    const job = await newJob();
    const theirs = await newJob(other.writeKey);
    await as(t, co.readKey).get(`/api/v1/jobs/${theirs.id}/activity`).expect(404);
    await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?person=Nobody`).expect(422);
  });
});
