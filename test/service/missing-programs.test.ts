/**
 * A machine without Debian's ffmpeg, poppler or tesseract: the service still runs, and videos,
 * PDFs and document reads answer 503 `feature_unavailable` naming the package to install,
 * instead of failing on a program that is not there. The programs are hidden by emptying PATH
 * for this test file's process (each jest file runs in its own module registry; the service
 * checks for the programs once, on first use).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { pdfOf } from '../support/document-files';
import { pngOf } from '../support/photo-files';

let t: TestApp;
let co: TestCompany;
let emptyDir: string;
const realPath = process.env.PATH;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  emptyDir = await mkdtemp(path.join(tmpdir(), 'jms-no-programs-'));
  process.env.PATH = emptyDir;
});
afterAll(async () => {
  process.env.PATH = realPath;
  await t.close();
  await rm(emptyDir, { recursive: true, force: true });
});

it('answers 503 feature_unavailable for videos and PDFs, and still takes photos', async () => {
  const write = as(t, co.writeKey);
  const job = (
    await write.post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'No Tools' }).expect(201)
  ).body;
  const upload = (collection: string, part: string, data: Buffer, name: string) =>
    t.http
      .post(`/api/v1/jobs/${job.id}/${collection}`)
      .set('Authorization', `Bearer ${co.writeKey}`)
      .field('meta', JSON.stringify({ operation_id: opId() }))
      .attach(part, data, name);

  // An MP4's first bytes: the content says video before any program is needed.
  const mp4Head = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(52)]);
  const video = await upload('videos', 'video', mp4Head, 'clip.mp4').expect(503);
  expect(video.body).toMatchObject({ code: 'feature_unavailable' });
  expect(video.body.detail).toContain('ffmpeg');

  const pdf = await upload('documents', 'document', pdfOf([{ lines: ['Report'] }]), 'report.pdf').expect(503);
  expect(pdf.body).toMatchObject({ code: 'feature_unavailable' });
  expect(pdf.body.detail).toContain('poppler-utils');

  // Nothing was saved; photos need no outside program.
  expect((await write.get(`/api/v1/jobs/${job.id}/videos`).expect(200)).body.total).toBe(0);
  expect((await write.get(`/api/v1/jobs/${job.id}/documents`).expect(200)).body.total).toBe(0);
  await upload('photos', 'photo', await pngOf(20, 20), 'p.png').expect(201);
});
