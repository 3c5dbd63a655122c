/**
 * Uploads have a share per company on a node (UPLOADS_PER_COMPANY): past it, a company's upload
 * waits, unread, until one of its own ends; another company's upload is not held back.
 */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { pngOf } from '../support/photo-files';
import { startUpload } from '../support/uploads';

let t: TestApp;
let a: TestCompany;
let b: TestCompany;

beforeAll(async () => {
  t = await startApp({ UPLOADS_PER_COMPANY: '1', UPLOAD_IDLE_SECONDS: '30' });
  [a, b] = [await createCompany(t), await createCompany(t)];
});
afterAll(() => t.close());

async function newJob(company: TestCompany): Promise<string> {
  return (
    await as(t, company.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Sam Share' })
      .expect(201)
  ).body.id;
}

function uploadPhoto(company: TestCompany, jobId: string, photo: Buffer) {
  return as(t, company.writeKey)
    .post(`/api/v1/jobs/${jobId}/photos`)
    .field('meta', JSON.stringify({ operation_id: opId() }))
    .attach('photo', photo, 'p.png');
}

it("holds a company's second upload while its first is being received, and not another company's", async () => {
  const [jobA, jobB] = [await newJob(a), await newJob(b)];
  const slow = startUpload(t.url, a.writeKey, jobA, 64 * 1024);
  slow.answer.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 200));

  let secondDone = false;
  const second = uploadPhoto(a, jobA, await pngOf(30, 20)).then((res) => {
    secondDone = true;
    return res;
  });
  const other = await uploadPhoto(b, jobB, await pngOf(31, 20)).expect(201);
  expect(other.body.photos).toHaveLength(1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(secondDone).toBe(false);

  // The first upload goes away: the second is read and saved.
  slow.req.destroy();
  expect((await second).status).toBe(201);
});
