/**
 * A node reads one company's uploads at most UPLOAD_MB_PER_SECOND, all of them together; another
 * company's upload is read at its own pace meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { pngOf } from '../support/photo-files';

let t: TestApp;
let a: TestCompany;
let b: TestCompany;

beforeAll(async () => {
  t = await startApp({ UPLOAD_MB_PER_SECOND: '1' });
  [a, b] = [await createCompany(t), await createCompany(t)];
});
afterAll(() => t.close());

async function newJob(company: TestCompany): Promise<string> {
  return (
    await as(t, company.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Pat Pace' })
      .expect(201)
  ).body.id;
}

/** A document upload of `bytes` that is not a document: read to the end, then refused by its content. */
async function junkUpload(company: TestCompany, bytes: number): Promise<{ status: number; seconds: number }> {
  const jobId = await newJob(company);
  const started = performance.now();
  const res = await as(t, company.writeKey)
    .post(`/api/v1/jobs/${jobId}/documents`)
    .field('meta', JSON.stringify({ operation_id: opId() }))
    .attach('document', randomBytes(bytes), 'scan.pdf');
  return { status: res.status, seconds: (performance.now() - started) / 1000 };
}

it("reads a company's uploads together at its pace, and another company's beside them", async () => {
  const jobB = await newJob(b);
  let otherDone = 0;
  const [first, second, other] = await Promise.all([
    junkUpload(a, 1.5 * 1024 * 1024),
    junkUpload(a, 1.5 * 1024 * 1024),
    (async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      const res = await as(t, b.writeKey)
        .post(`/api/v1/jobs/${jobB}/photos`)
        .field('meta', JSON.stringify({ operation_id: opId() }))
        .attach('photo', await pngOf(40, 30), 'p.png');
      otherDone = performance.now();
      return { status: res.status, seconds: (otherDone - started) / 1000 };
    })(),
  ]);
  // 3 MiB at 1 MiB a second, shared by the two: neither can end before about 3 s (0.1 s passes at once).
  expect([first.status, second.status]).toEqual([415, 415]);
  expect(Math.max(first.seconds, second.seconds)).toBeGreaterThan(2.7);
  // The other company's photo is not held behind them.
  expect(other.status).toBe(201);
  expect(other.seconds).toBeLessThan(Math.max(first.seconds, second.seconds) - 1);
});
