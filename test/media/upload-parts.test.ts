/**
 * The parts of an upload, as the spec states them for upload_job_photos, upload_job_documents
 * and upload_job_videos: exactly one `meta` and file parts of the upload's name, each sent with a
 * filename (or as application/octet-stream). Any other part, a file part sent as a text field or a
 * second `meta` answers 400 `invalid_request` naming the part, and nothing is saved.
 */
import { randomUUID } from 'node:crypto';
import spec from '../../src/generated/openapi.json';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { loadOperations } from '../support/fuzz/operations';
import { pngOf } from '../support/photo-files';

let t: TestApp;
let co: TestCompany;
let jobId: string;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  jobId = (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Parts Pat' })
      .expect(201)
  ).body.id;
}, 120_000);
afterAll(() => t.close());

interface Part {
  name: string;
  filename?: string;
  type?: string;
  body: Buffer | string;
}

/** A multipart body written by hand, so that a part can lack a filename or carry any name. */
function multipart(parts: Part[]): { boundary: string; body: Buffer } {
  const boundary = `b${randomUUID()}`;
  const chunks = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"` +
        `${part.filename === undefined ? '' : `; filename="${part.filename}"`}\r\n` +
        `${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
    ),
    Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body),
    Buffer.from('\r\n'),
  ]);
  return { boundary, body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]) };
}

function send(collection: string, parts: Part[]) {
  const { boundary, body } = multipart(parts);
  return as(t, co.writeKey)
    .post(`/api/v1/jobs/${jobId}/${collection}`)
    .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
    .send(body);
}

const meta = (): Part => ({ name: 'meta', body: JSON.stringify({ operation_id: opId() }) });

const UPLOADS = [
  ['photos', 'photo', 'upload_job_photos'],
  ['documents', 'document', 'upload_job_documents'],
  ['videos', 'video', 'upload_job_videos'],
] as const;

describe.each(UPLOADS)('%s: the parts the spec states', (collection, filePart, operation) => {
  it('the spec allows no other part and gives the file part a required Content-Disposition with a filename', async () => {
    const op = (await loadOperations()).find((o) => o.name === operation)!;
    const path = (spec.paths as unknown as Record<string, Record<string, { requestBody: unknown }>>)[op.path]
      .post;
    const content = (path.requestBody as { content: Record<string, { schema: unknown; encoding: unknown }> })
      .content['multipart/form-data'];
    expect(content.schema).toMatchObject({ additionalProperties: false, required: ['meta', filePart] });
    expect(content.encoding).toMatchObject({
      meta: { contentType: 'application/json' },
      [filePart]: {
        headers: { 'Content-Disposition': { $ref: '#/components/headers/FilePartDisposition' } },
      },
    });
    const disposition = spec.components.headers.FilePartDisposition;
    expect(disposition.required).toBe(true);
    expect(disposition.description).toContain('filename');
  });

  it.each([
    [
      'a text part of another name',
      { name: 'caption', body: 'Kitchen' },
      '/body/caption',
      'is not a part of this upload',
    ],
    [
      'a file part of another name',
      { name: 'file', filename: 'a.png', type: 'image/png', body: 'x' },
      '/body/file',
      'is not a part of this upload',
    ],
    ['a second meta', { name: 'meta', body: '{}' }, '/body/meta', 'must be sent once'],
  ])('%s is a 400 naming it, and nothing is saved', async (_what, extra, path, message) => {
    const file: Part = {
      name: filePart,
      filename: 'f.bin',
      type: 'application/octet-stream',
      body: 'not a file',
    };
    const res = await send(collection, [meta(), file, extra]);
    expect([res.status, res.body.code]).toEqual([400, 'invalid_request']);
    expect(res.body.errors).toEqual([{ path, message: expect.stringContaining(message) }]);
    expect((await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/${collection}`).expect(200)).body.total).toBe(
      0,
    );
  });

  it('a file part without a filename, sent as a text field, is a 400 that says to send the filename', async () => {
    const res = await send(collection, [meta(), { name: filePart, type: 'image/png', body: 'not a file' }]);
    expect([res.status, res.body.code]).toEqual([400, 'invalid_request']);
    expect(res.body.errors).toEqual([
      { path: `/body/${filePart}`, message: expect.stringContaining('filename=') },
    ]);
  });
});

it('a photo part without a filename sent as application/octet-stream is a file without a name, as the spec says', async () => {
  const png = await pngOf(12, 9);
  const res = await send('photos', [meta(), { name: 'photo', type: 'application/octet-stream', body: png }]);
  expect(res.status).toBe(201);
  expect(res.body.photos).toHaveLength(1);
});
