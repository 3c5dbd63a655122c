/**
 * The OCR pool's share of one company (OCR_PAGES_PER_COMPANY): a company never has more pages
 * with OCR than its share, however often it calls, so that its long scan cannot fill the queue
 * ahead of another company's pages; later calls queue the rest. Set to 2 here, with a 3-page
 * scan: calling again at once must not queue the third page, and another company's page is read
 * meanwhile.
 */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { photographedPage, scannedPdf } from '../support/document-files';
import type { components } from '../../sdk/src/schema';

type DocumentText = components['schemas']['DocumentText'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

beforeAll(async () => {
  t = await startApp({ OCR_PAGES_PER_COMPANY: '2', OCR_WORKERS: '1' });
  co = await createCompany(t);
  other = await createCompany(t);
}, 60_000);
afterAll(async () => {
  await t.close();
});

async function uploadDocument(company: TestCompany, data: Buffer, name: string): Promise<{ id: string; sha256: string }> {
  const job = (await as(t, company.writeKey).post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Scan Sam' }).expect(201)).body;
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
  return (await t.db('document_pages').where({ company_id: companyId, sha256 }).orderBy('page').pluck('page')).map(Number);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it('queues at most its share of a company\'s pages, whatever the calls, and reads another company\'s page meanwhile', async () => {
  const scan = await uploadDocument(co, await scannedPdf([['SHARE page one'], ['SHARE page two'], ['SHARE page three']]), 'scan.pdf');
  const receipt = await uploadDocument(other, await photographedPage(['RECEIPT for fans']), 'receipt.jpg');

  expect((await readNow(co, scan.id)).pending).toEqual([1, 2, 3]);
  // Calling again at once (a poller) finds two pages under way and may not queue the third.
  expect((await readNow(co, scan.id)).pending).toEqual([1, 2, 3]);
  // The other company's page is queued now, behind two pages at most, not three.
  expect((await readNow(other, receipt.id)).pending).toEqual([1]);

  await until(async () => (await keptPages(co.id, scan.sha256)).length === 2, 'the first two pages');
  await until(async () => (await keptPages(other.id, receipt.sha256)).length === 1, "the other company's page");
  // Nobody asked again: the third page was never queued.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await keptPages(co.id, scan.sha256)).toEqual([1, 2]);

  // The next call queues it.
  expect((await readNow(co, scan.id)).pending).toEqual([3]);
  await until(async () => (await keptPages(co.id, scan.sha256)).length === 3, 'the third page');
  const done = await readNow(co, scan.id);
  expect(done.pending).toEqual([]);
  expect(done.pages?.map((p) => p.text.toUpperCase().includes('SHARE'))).toEqual([true, true, true]);
}, 120_000);
