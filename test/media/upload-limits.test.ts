/**
 * The upload limits are exact: the last file allowed passes and one more is 413. An upload that
 * the client abandons, or whose body stalls, releases its files at once: no descriptor of the
 * service (this process) points into an upload's temporary directory afterwards.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { pngOf } from '../support/photo-files';
import { startUpload } from '../support/uploads';

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp({ UPLOAD_IDLE_SECONDS: '1' });
  co = await createCompany(t);
});
afterAll(() => t.close());

async function newJob(): Promise<string> {
  return (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Lena Limit' })
      .expect(201)
  ).body.id;
}

function upload(jobId: string, collection: string, part: string, files: Buffer[]) {
  const req = as(t, co.writeKey)
    .post(`/api/v1/jobs/${jobId}/${collection}`)
    .field('meta', JSON.stringify({ operation_id: opId() }));
  for (const [i, file] of files.entries()) req.attach(part, file, `f${i}.bin`);
  return req;
}

/** Descriptors of this process that point into an upload's temporary directory. */
function openUploadFiles(): string[] {
  const targets = readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  });
  return targets.filter((target) => target.includes('jms-upload-'));
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
}

it('takes 50 photos in one request and refuses 51 with 413', async () => {
  const jobId = await newJob();
  const photos = await Promise.all(Array.from({ length: 51 }, (_, i) => pngOf(8 + i, 8)));
  const refused = await upload(jobId, 'photos', 'photo', photos).expect(413);
  expect(refused.body).toMatchObject({ code: 'payload_too_large', detail: expect.stringContaining('50') });
  expect((await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/photos`).expect(200)).body.total).toBe(0);
  const saved = await upload(jobId, 'photos', 'photo', photos.slice(0, 50)).expect(201);
  expect(saved.body.photos).toHaveLength(50);
}, 60_000);

it.each([
  ['documents', 'document', 20],
  ['videos', 'video', 10],
])(
  'reads %s up to the limit (%s parts: %i) and refuses one more with 413',
  async (collection, part, limit) => {
    const jobId = await newJob();
    // Files that are neither: at the limit they are read and refused by their content (415);
    // one more is refused by the count before any content is looked at.
    const files = Array.from({ length: limit + 1 }, (_, i) => Buffer.from(`not a ${part} ${i} `.repeat(20)));
    const atLimit = await upload(jobId, collection, part, files.slice(0, limit));
    expect([atLimit.status, atLimit.body.code]).toEqual([415, 'unsupported_media_type']);
    const over = await upload(jobId, collection, part, files);
    expect([over.status, over.body.code]).toEqual([413, 'payload_too_large']);
  },
);

it("releases an abandoned upload's file at once", async () => {
  const jobId = await newJob();
  const { req, answer } = startUpload(t.url, co.writeKey, jobId, 256 * 1024);
  answer.catch(() => undefined);
  expect(await until(() => openUploadFiles().length > 0, 5_000)).toBe(true);
  req.destroy();
  expect(await until(() => openUploadFiles().length === 0, 2_000)).toBe(true);
  expect(openUploadFiles()).toEqual([]);
});

it('cuts off a body that sends nothing with 408, and releases its file', async () => {
  const jobId = await newJob();
  const started = Date.now();
  const { req, answer } = startUpload(t.url, co.writeKey, jobId, 64 * 1024);
  const { status, body } = await answer;
  expect(status).toBe(408);
  expect(JSON.parse(body)).toMatchObject({ code: 'request_timeout' });
  // UPLOAD_IDLE_SECONDS is 1 here: cut off after it, not at Node's own 5 minutes.
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(await until(() => openUploadFiles().length === 0, 2_000)).toBe(true);
  req.destroy();
  expect((await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/photos`).expect(200)).body.total).toBe(0);
});
