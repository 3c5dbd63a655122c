/**
 * Fair OCR between companies: every page of a long scan is queued at once, and another company's
 * page asked for afterwards is read next, not behind the whole scan (the queue's priority is
 * minus the company's pages still waiting). One OCR worker here.
 */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { photographedPage, scannedPdf } from '../support/document-files';
import type { components } from '../../sdk/src/schema';

type DocumentText = components['schemas']['DocumentText'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

beforeAll(async () => {
  t = await startApp({ OCR_WORKERS: '1', QUEUE_POLL_MS: '100' });
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(async () => {
  await t.close();
});

async function uploadDocument(
  company: TestCompany,
  data: Buffer,
  name: string,
): Promise<{ id: string; sha256: string }> {
  const job = (
    await as(t, company.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Scan Sam' })
      .expect(201)
  ).body;
  const sent = await t.http
    .post(`/api/v1/jobs/${job.id}/documents`)
    .set('Authorization', `Bearer ${company.writeKey}`)
    .field('meta', JSON.stringify({ operation_id: opId() }))
    .attach('document', data, name)
    .expect(201);
  return sent.body.documents[0];
}

const readNow = async (company: TestCompany, id: string, query = ''): Promise<DocumentText> =>
  (await as(t, company.readKey).get(`/api/v1/documents/${id}?wait_seconds=0${query}`).expect(200)).body;

/** Pages of this content whose text is kept (read by OCR). */
async function keptPages(companyId: string, sha256: string): Promise<number[]> {
  return (
    await t.db('document_pages').where({ company_id: companyId, sha256 }).orderBy('page').pluck('page')
  ).map(Number);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it("reads another company's page right after the page under way, then the rest of a long scan, each page once", async () => {
  const scan = await uploadDocument(
    co,
    await scannedPdf([['SHARE page one'], ['SHARE page two'], ['SHARE page three'], ['SHARE page four']]),
    'scan.pdf',
  );
  const receipt = await uploadDocument(other, await photographedPage(['RECEIPT for fans']), 'receipt.jpg');

  expect((await readNow(co, scan.id)).pending).toEqual([1, 2, 3, 4]);
  // Calling again (a poller) queues nothing twice.
  expect((await readNow(co, scan.id)).pending).toEqual([1, 2, 3, 4]);
  expect((await readNow(other, receipt.id)).pending).toEqual([1]);

  await until(
    async () => (await keptPages(other.id, receipt.sha256)).length === 1,
    "the other company's page",
  );
  // Read behind at most the page under way and the one fetched with it, not the whole scan.
  expect((await keptPages(co.id, scan.sha256)).length).toBeLessThanOrEqual(2);

  await until(async () => (await keptPages(co.id, scan.sha256)).length === 4, 'the rest of the scan');
  const done = await readNow(co, scan.id);
  expect(done.pending).toEqual([]);
  expect(done.pages?.map((p) => p.text.toUpperCase().includes('SHARE'))).toEqual([true, true, true, true]);
  const pages = await t
    .db('document_pages')
    .where({ company_id: co.id, sha256: scan.sha256 })
    .count<{ n: string }[]>('* as n');
  expect(Number(pages[0].n)).toBe(4);
}, 120_000);
