/**
 * Photos over HTTP and MCP, on both file stores (local disk and S3-compatible storage served by
 * s3rver): upload by content, renditions, EXIF time, rooms, duplicates, replays, all-or-nothing
 * with no stray files, limits and bombs, signed links, moves and captions, undo, the change feed,
 * other companies and read keys.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type request from 'supertest';
import type { components } from '../../sdk/src/schema';
import { as, atOnce, createCompany, feedSettled, opId, type TestApp, type TestCompany } from '../support/app';
import { startAppOn } from '../support/s3';
import { sweepUnusedFiles } from '../../src/domain/media/file-sweeper';
import { hugeHeaderPng, jpegWith, pngOf, truncatedJpeg } from '../support/photo-files';
import { connectMcp } from '../support/mcp';

type Schemas = components['schemas'];
type PhotoUpload = Schemas['PhotoUpload'];
type PhotoList = Schemas['PhotoList'];
type Photo = Schemas['Photo'];
type Entry = Schemas['ChangeEntry'];

const HEIC = path.join(__dirname, '..', 'fixtures/heic/phone.heic');
const MiB = 1024 * 1024;

interface Part {
  data: Buffer;
  name: string;
  type?: string;
}

/** The tools this file tests (tests-by-tool.unit.test.ts finds them in the describe's title). */
const TOOLS =
  'upload_job_photos, list_job_photos, update_photos, move_photos, get_photo_upload_link, view_photos';

describe.each(['disk', 's3'] as const)(`${TOOLS}: photos on %s storage`, (store) => {
  let t: TestApp;
  let co: TestCompany;
  let other: TestCompany;

  beforeAll(async () => {
    t = await startAppOn(store);
    co = await createCompany(t);
    other = await createCompany(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const write = (company = co) => as(t, company.writeKey);
  const read = (company = co) => as(t, company.readKey);

  async function newJob(company = co): Promise<{ id: string; job_number: number }> {
    return (
      await write(company)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Photo Phil' })
        .expect(201)
    ).body;
  }

  function upload(
    jobId: string,
    meta: Record<string, unknown>,
    parts: Part[],
    key = co.writeKey,
  ): request.Test {
    const req = t.http
      .post(`/api/v1/jobs/${jobId}/photos`)
      .set('Authorization', `Bearer ${key}`)
      .field('meta', JSON.stringify(meta));
    for (const part of parts)
      req.attach('photo', part.data, {
        filename: part.name,
        contentType: part.type ?? 'application/octet-stream',
      });
    return req;
  }

  const stored = async (): Promise<string[]> => (await t.media.files.list(`${co.id}/`)).sort();
  const photosOf = async (jobId: string, query = ''): Promise<PhotoList> =>
    (await read().get(`/api/v1/jobs/${jobId}/photos${query}`).expect(200)).body;

  async function fetchLink(url: string, headers: Record<string, string> = {}): Promise<Response> {
    // Links name the service's PUBLIC_URL; the test's service listens on a port of its own.
    const link = new URL(url);
    return fetch(`${t.url}${link.pathname}${link.search}`, { headers });
  }

  it('takes JPEG, PNG and HEIC by content, keeps originals and makes renditions without location', async () => {
    const job = await newJob();
    const jpeg = await jpegWith({
      width: 3000,
      height: 2000,
      taken: { local: '2026-11-20T09:15:30', offset: '-06:00' },
      gps: true,
    });
    const png = await pngOf(800, 600);
    const heic = await readFile(HEIC);
    const res = await upload(job.id, { operation_id: opId(), room: 'Kitchen' }, [
      { data: jpeg, name: 'IMG_0001.JPG', type: 'image/jpeg' },
      { data: png, name: 'looks-like.jpg', type: 'image/jpeg' },
      { data: heic, name: 'IMG_0002.HEIC', type: 'image/heic' },
    ]).expect(201);
    const body: PhotoUpload = res.body;
    expect(body.added).toBe(3);
    expect(body.photos.map((p) => [p.format, p.room, p.duplicate, p.name])).toEqual([
      ['jpeg', 'Kitchen', false, 'IMG_0001.JPG'],
      ['png', 'Kitchen', false, 'looks-like.jpg'],
      ['heic', 'Kitchen', false, 'IMG_0002.HEIC'],
    ]);
    const [first, , phone] = body.photos;
    expect(first).toMatchObject({
      width: 3000,
      height: 2000,
      bytes: jpeg.length,
      taken_at: '2026-11-20T15:15:30.000Z',
      taken_at_source: 'exif',
      uploaded_via: 'api',
    });
    expect(first.uploaded_by.id).toBe(co.people[0].id);
    expect(phone).toMatchObject({
      width: 1200,
      height: 900,
      taken_at: '2026-11-20T15:15:30.000Z',
      taken_at_source: 'exif',
    });
    expect(body.rooms_added).toEqual(['Kitchen']);

    // Renditions: JPEG, long side 2048 and 400, no EXIF (so no GPS), over a link without a key.
    for (const [url, side] of [
      [first.links.web, 2048],
      [first.links.thumbnail, 400],
      [phone.links.web, 1200],
    ] as const) {
      const answer = await fetchLink(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await answer.arrayBuffer())).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width!, meta.height!)).toBe(side);
      expect(meta.exif).toBeUndefined();
    }
    expect(first.links.web).not.toContain(co.writeKey);
    // Originals are kept as sent, under their SHA-256.
    const original = await t.media.files.open(`${co.id}/photos/${first.sha256}/original`);
    const chunks: Buffer[] = [];
    for await (const chunk of original!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(jpeg)).toBe(true);

    const job2 = await read().get(`/api/v1/jobs/${job.id}`).expect(200);
    expect(job2.body.photo_count).toBe(3);
    const found = (await read().get('/api/v1/jobs?photos=with&limit=100').expect(200)).body.data.map(
      (j: { id: string }) => j.id,
    );
    expect(found).toContain(job.id);
  });

  it('serves a range of a rendition, and answers 416 outside it', async () => {
    const job = await newJob();
    const [photo] = (
      await upload(job.id, { operation_id: opId() }, [{ data: await pngOf(640, 480), name: 'a.png' }]).expect(
        201,
      )
    ).body.photos;
    const whole = await fetchLink(photo.links.web);
    const size = Number(whole.headers.get('content-length'));
    const part = await fetchLink(photo.links.web, { Range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${size}`);
    expect((await part.arrayBuffer()).byteLength).toBe(10);
    expect((await fetchLink(photo.links.web, { Range: `bytes=${size + 5}-` })).status).toBe(416);
  });

  it('applies the EXIF orientation: a portrait taken sideways is shown upright', async () => {
    const job = await newJob();
    const [photo] = (
      await upload(job.id, { operation_id: opId() }, [
        { data: await jpegWith({ width: 600, height: 400, orientation: 6 }), name: 'turned.jpg' },
      ]).expect(201)
    ).body.photos;
    expect(photo).toMatchObject({ width: 400, height: 600 });
    const web = await sharp(Buffer.from(await (await fetchLink(photo.links.web)).arrayBuffer())).metadata();
    expect([web.width, web.height, web.orientation ?? 1]).toEqual([400, 600, 1]);
  });

  it('reads the EXIF time without an offset in the company timezone, and uses the upload time when there is none', async () => {
    const job = await newJob();
    const before = Date.now();
    const body: PhotoUpload = (
      await upload(job.id, { operation_id: opId() }, [
        {
          data: await jpegWith({ width: 400, height: 300, taken: { local: '2026-07-04T12:00:00' } }),
          name: 'local.jpg',
        },
        { data: await jpegWith({ width: 400, height: 300 }), name: 'none.jpg' },
      ]).expect(201)
    ).body;
    const timezone = (await read().get('/api/v1/context').expect(200)).body.company.timezone as string;
    const expected = new Date(
      new Date('2026-07-04T12:00:00Z').getTime() -
        offsetMinutes(timezone, new Date('2026-07-04T12:00:00Z')) * 60_000,
    );
    expect(body.photos[0]).toMatchObject({
      taken_at_source: 'exif_without_offset',
      taken_at: expected.toISOString(),
    });
    // No time in the file: it is not said to be taken at its upload, only uploaded then.
    expect(body.photos[1]).toMatchObject({ taken_at_source: 'upload_time', taken_at: null });
    expect(new Date(body.photos[1].uploaded_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('gives a photo its time taken at upload or with update_photos; without one it is uploaded, not taken', async () => {
    const job = await newJob();
    const jpeg = (width: number, taken?: { local: string; offset?: string }) =>
      jpegWith({ width, height: 200, taken });
    const up = (
      await upload(job.id, { operation_id: opId(), taken_at: '2026-11-20T14:03:00-06:00' }, [
        { data: await jpeg(300, { local: '2026-07-04T12:00:00', offset: '+02:00' }), name: 'camera.jpg' },
        { data: await jpeg(301), name: 'plain.jpg' },
      ]).expect(201)
    ).body.photos as Photo[];
    // The camera's time wins; the time given fills in where the file has none.
    expect(up.map((p) => [p.taken_at, p.taken_at_source])).toEqual([
      ['2026-07-04T10:00:00.000Z', 'exif'],
      ['2026-11-20T20:03:00.000Z', 'given'],
    ]);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const refused = await upload(job.id, { operation_id: opId(), taken_at: later }, [
      { data: await jpeg(302), name: 'later.jpg' },
    ]).expect(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: '/body/meta/taken_at' })]);
    const plain = (
      await upload(job.id, { operation_id: opId() }, [{ data: await jpeg(303), name: 'none.jpg' }]).expect(
        201,
      )
    ).body.photos[0] as Photo;
    expect(plain).toMatchObject({ taken_at: null, taken_at_source: 'upload_time' });

    const patch = (body: Record<string, unknown>, key = co.writeKey, jobId = job.id) =>
      as(t, key).patch(`/api/v1/jobs/${jobId}/photos`).send(body);
    const operation_id = opId();
    const given = { operation_id, photos: [{ photo_id: plain.id, taken_at: '2026-11-21T08:30:00Z' }] };
    expect((await patch(given).expect(200)).body.photos[0]).toMatchObject({
      taken_at: '2026-11-21T08:30:00.000Z',
      taken_at_source: 'given',
    });
    expect((await patch(given).expect(200)).headers['idempotent-replayed']).toBe('true');
    const otherTime = { operation_id, photos: [{ photo_id: plain.id, taken_at: '2026-11-21T09:30:00Z' }] };
    expect((await patch(otherTime).expect(409)).body.code).toBe('operation_id_conflict');
    const future = await patch({
      operation_id: opId(),
      photos: [{ photo_id: plain.id, taken_at: later }],
    }).expect(400);
    expect(future.body.errors).toEqual([expect.objectContaining({ path: '/body/photos/0/taken_at' })]);
    await patch({ operation_id: opId(), photos: [{ photo_id: plain.id, taken_at: 'yesterday' }] }).expect(
      400,
    );
    await patch(
      { operation_id: opId(), photos: [{ photo_id: plain.id, taken_at: '2026-11-21T08:30:00Z' }] },
      co.readKey,
    ).expect(403);
    // Another company's photo and job are not found.
    const otherJob = await newJob(other);
    const theirs = (
      await upload(
        otherJob.id,
        { operation_id: opId() },
        [{ data: await jpeg(304), name: 'theirs.jpg' }],
        other.writeKey,
      ).expect(201)
    ).body.photos[0] as Photo;
    await patch({
      operation_id: opId(),
      photos: [{ photo_id: theirs.id, taken_at: '2026-11-21T08:30:00Z' }],
    }).expect(404);
    await patch(
      { operation_id: opId(), photos: [{ photo_id: plain.id, taken_at: '2026-11-21T08:30:00Z' }] },
      co.writeKey,
      otherJob.id,
    ).expect(404);

    await feedSettled(t);
    const entry = (
      (await read().get('/api/v1/changes?kind=files&limit=100').expect(200)).body.data as {
        action: string;
        data: { fields?: string[] };
      }[]
    ).find((e) => e.action === 'photos.updated');
    expect(entry?.data.fields).toEqual(['taken_at']);
    // Undo takes the time given back: only the upload time is known again.
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await photosOf(job.id)).data.find((p) => p.id === plain.id)).toMatchObject({
      taken_at: null,
      taken_at_source: 'upload_time',
    });

    // Over MCP: an assistant sees which photo has no time taken, and gives it one.
    const client = await connectMcp(t, co.writeKey);
    try {
      const seen = (await client.callTool({
        name: 'view_photos',
        arguments: { photo_ids: [plain.id] },
      })) as CallToolResult;
      expect((seen.content[0] as { text: string }).text).toContain('time taken unknown');
      const set = (await client.callTool({
        name: 'update_photos',
        arguments: {
          job_id: job.job_number,
          operation_id: opId(),
          photos: [{ photo_id: plain.id, taken_at: '2026-11-22T07:00:00-06:00' }],
        },
      })) as CallToolResult;
      expect((set.structuredContent as { photos: Photo[] }).photos[0]).toMatchObject({
        taken_at: '2026-11-22T13:00:00.000Z',
        taken_at_source: 'given',
      });
      const again = (await client.callTool({
        name: 'view_photos',
        arguments: { photo_ids: [plain.id] },
      })) as CallToolResult;
      expect((again.content[0] as { text: string }).text).toContain('taken 2026-11-22T13:00:00.000Z');
    } finally {
      await client.close();
    }
  });

  it('refuses by content, names the part, and saves nothing of a request with one bad part', async () => {
    const job = await newJob();
    const filesBefore = await stored();
    const good = await jpegWith({ width: 500, height: 400 });
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    const cases: [Part, number, string, RegExp][] = [
      [
        { data: pdf, name: 'scan.jpg', type: 'image/jpeg' },
        415,
        'unsupported_media_type',
        /photo part 2 \(scan\.jpg\).*PDF/,
      ],
      [{ data: await truncatedJpeg(), name: 'cut.jpg' }, 422, 'invalid_file', /photo part 2 \(cut\.jpg\)/],
      [
        { data: await hugeHeaderPng(), name: 'bomb.png' },
        422,
        'image_too_large',
        /photo part 2 \(bomb\.png\).*100 megapixels/,
      ],
    ];
    for (const [bad, status, code, detail] of cases) {
      const res = await upload(job.id, { operation_id: opId() }, [
        { data: good, name: 'ok.jpg' },
        bad,
      ]).expect(status);
      expect(res.body).toMatchObject({ code });
      expect(res.body.detail).toMatch(detail);
    }
    expect((await photosOf(job.id)).total).toBe(0);
    expect(await stored()).toEqual(filesBefore);
  });

  it('enforces the size limits with 413 and saves nothing', async () => {
    const job = await newJob();
    const filesBefore = await stored();
    const big = Buffer.concat([await jpegWith({ width: 200, height: 200 }), Buffer.alloc(30 * MiB)]);
    const res = await upload(job.id, { operation_id: opId() }, [{ data: big, name: 'big.jpg' }]).expect(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large' });
    expect(res.body.detail).toMatch(/photo part 1 \(big\.jpg\) is over 30 MiB/);
    const tiny = await pngOf(8, 8);
    const many = Array.from({ length: 51 }, (_, i) => ({ data: tiny, name: `p${i}.png` }));
    expect((await upload(job.id, { operation_id: opId() }, many).expect(413)).body.detail).toMatch(
      /At most 50/,
    );
    if (store === 'disk') {
      // 7 photos under 30 MiB each, over 200 MiB together (the limit does not depend on the store).
      const parts = Array.from({ length: 7 }, (_, i) => ({
        data: Buffer.concat([tiny, Buffer.alloc(29 * MiB + i)]),
        name: `q${i}.png`,
      }));
      expect((await upload(job.id, { operation_id: opId() }, parts).expect(413)).body.detail).toMatch(
        /200 MiB/,
      );
    }
    expect((await photosOf(job.id)).total).toBe(0);
    expect(await stored()).toEqual(filesBefore);
  });

  it('checks meta and the parts', async () => {
    const job = await newJob();
    const png = await pngOf(10, 10);
    const noMeta = t.http
      .post(`/api/v1/jobs/${job.id}/photos`)
      .set('Authorization', `Bearer ${co.writeKey}`)
      .attach('photo', png, 'a.png');
    expect((await noMeta.expect(400)).body.errors[0].path).toBe('/body/meta');
    // A missing field of meta is named as one of a JSON body is.
    expect(
      (await upload(job.id, { room: 'Kitchen' }, [{ data: png, name: 'a.png' }]).expect(400)).body.errors[0]
        .path,
    ).toBe('/body/meta/operation_id');
    expect((await upload(job.id, { operation_id: opId() }, []).expect(400)).body.errors[0].path).toBe(
      '/body/photo',
    );
    const mismatch = await upload(
      job.id,
      { operation_id: opId(), photos: [{ caption: 'one' }, { caption: 'two' }] },
      [{ data: png, name: 'a.png' }],
    ).expect(400);
    expect(mismatch.body.errors[0].path).toBe('/body/meta/photos');
    const json = await write()
      .post(`/api/v1/jobs/${job.id}/photos`)
      .send({ operation_id: opId() })
      .expect(415);
    expect(json.body.code).toBe('unsupported_media_type');
  });

  it('answers a replay with the first answer and stores nothing again; another request under the same operation_id is a conflict', async () => {
    const job = await newJob();
    const operation = opId();
    const parts = [{ data: await jpegWith({ width: 640, height: 480 }), name: 'a.jpg' }];
    const first = await upload(job.id, { operation_id: operation, room: 'Hall' }, parts).expect(201);
    const filesAfterFirst = await stored();
    const again = await upload(job.id, { operation_id: operation, room: 'Hall' }, parts).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.photos.map((p: { id: string }) => p.id)).toEqual(
      first.body.photos.map((p: { id: string }) => p.id),
    );
    expect((await photosOf(job.id)).total).toBe(1);
    expect(await stored()).toEqual(filesAfterFirst);
    const otherFile = await upload(job.id, { operation_id: operation, room: 'Hall' }, [
      { data: await pngOf(30, 30), name: 'a.jpg' },
    ]).expect(409);
    expect(otherFile.body.code).toBe('operation_id_conflict');
  });

  it('answers the same photo sent again to the job as the existing one, never stored twice', async () => {
    const job = await newJob();
    const photo = await jpegWith({ width: 700, height: 500 });
    const first: PhotoUpload = (
      await upload(job.id, { operation_id: opId(), room: 'Bath' }, [{ data: photo, name: 'x.jpg' }]).expect(
        201,
      )
    ).body;
    const second: PhotoUpload = (
      await upload(job.id, { operation_id: opId(), room: 'Kitchen' }, [
        { data: photo, name: 'x-again.jpg' },
        { data: photo, name: 'x-thrice.jpg' },
      ]).expect(201)
    ).body;
    expect(second).toMatchObject({ added: 0, duplicates: 2, rooms_added: [] });
    expect(second.photos.map((p) => [p.id, p.duplicate, p.room])).toEqual([
      [first.photos[0].id, true, 'Bath'],
      [first.photos[0].id, true, 'Bath'],
    ]);
    // Within one request, the second copy of a new photo is the duplicate.
    const job2 = await newJob();
    const both: PhotoUpload = (
      await upload(job2.id, { operation_id: opId() }, [
        { data: photo, name: 'a.jpg' },
        { data: photo, name: 'b.jpg' },
      ]).expect(201)
    ).body;
    expect(both.photos.map((p) => p.duplicate)).toEqual([false, true]);
    expect(both.added).toBe(1);
    expect((await photosOf(job2.id)).total).toBe(1);
  });

  it('saves a photo sent twice at once (two devices, or a retry racing its first try) once', async () => {
    const job = await newJob();
    const photo = await jpegWith({
      width: 640,
      height: 480,
      taken: { local: '2026-11-21T08:00:00', offset: '+00:00' },
    });
    const operation = opId();
    const [a, b, c, d] = await atOnce(t, [
      () => upload(job.id, { operation_id: opId() }, [{ data: photo, name: 'phone-a.jpg' }]),
      () => upload(job.id, { operation_id: opId() }, [{ data: photo, name: 'phone-b.jpg' }]),
      () => upload(job.id, { operation_id: operation }, [{ data: photo, name: 'retry.jpg' }]),
      () => upload(job.id, { operation_id: operation }, [{ data: photo, name: 'retry.jpg' }]),
    ]);
    for (const res of [a, b, c, d]) expect(res.status).toBe(201);
    const ids = new Set([a, b, c, d].map((res) => res.body.photos[0].id));
    expect(ids.size).toBe(1);
    // c and d are one request: one of them answers the other's answer.
    expect([c, d].filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(1);
    expect(c.body).toEqual(d.body);
    expect([a, b, c].filter((res) => res.body.added === 1)).toHaveLength(1);
    expect((await photosOf(job.id)).total).toBe(1);
    expect((await stored()).filter((key) => key.includes(a.body.photos[0].sha256))).toHaveLength(3);
  });

  it("files photos by room: the estimate's spelling, new rooms, Unsorted and counts; lists newest first, paged", async () => {
    const job = await newJob();
    await write()
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({ operation_id: opId(), label: 'Mitigation', rooms: [{ name: 'Living Room' }] })
      .expect(201);
    const taken = (day: number) => ({ local: `2026-11-0${day}T10:00:00`, offset: '+00:00' });
    const body: PhotoUpload = (
      await upload(
        job.id,
        {
          operation_id: opId(),
          photos: [
            { room: 'living room', caption: 'Wet carpet' },
            { room: 'Garage' },
            {},
            { room: 'unsorted' },
          ],
        },
        await Promise.all(
          [1, 2, 3, 4].map(async (day) => ({
            data: await jpegWith({ width: 300 + day, height: 200, taken: taken(day) }),
            name: `d${day}.jpg`,
          })),
        ),
      ).expect(201)
    ).body;
    expect(body.photos.map((p) => p.room)).toEqual(['Living Room', 'Garage', 'Unsorted', 'Unsorted']);
    expect(body.photos[0].caption).toBe('Wet carpet');
    expect(body.rooms_added).toEqual(['Garage']);

    const list = await photosOf(job.id, '?limit=3');
    expect(list.rooms).toEqual([
      { name: 'Living Room', count: 1 },
      { name: 'Garage', count: 1 },
      { name: 'Unsorted', count: 2 },
    ]);
    expect(list.data.map((p) => p.name)).toEqual(['d4.jpg', 'd3.jpg', 'd2.jpg']);
    const rest = await photosOf(job.id, `?limit=3&cursor=${list.next_cursor}`);
    expect(rest.data.map((p) => p.name)).toEqual(['d1.jpg']);
    expect(rest.next_cursor).toBeNull();
    expect((await photosOf(job.id, '?room=UNSORTED')).data.map((p) => p.name)).toEqual(['d4.jpg', 'd3.jpg']);
    expect((await photosOf(job.id, '?room=garage')).data.map((p) => p.name)).toEqual(['d2.jpg']);
  });

  it('moves photos and sets captions and names, with feed entries and undo', async () => {
    const job = await newJob();
    const body: PhotoUpload = (
      await upload(job.id, { operation_id: opId() }, [
        { data: await pngOf(20, 20), name: 'one.png' },
        { data: await pngOf(21, 20), name: 'two.png' },
      ]).expect(201)
    ).body;
    const ids = body.photos.map((p) => p.id);
    const moved = await write()
      .post(`/api/v1/jobs/${job.id}/photos/rooms`)
      .send({ operation_id: opId(), photo_ids: ids, room: 'Laundry' })
      .expect(200);
    expect(moved.body).toMatchObject({
      room: 'Laundry',
      moved: ids,
      unchanged: [],
      rooms_added: ['Laundry'],
    });
    const again = await write()
      .post(`/api/v1/jobs/${job.id}/photos/rooms`)
      .send({ operation_id: opId(), photo_ids: [ids[0]], room: 'laundry' })
      .expect(200);
    expect(again.body).toMatchObject({ moved: [], unchanged: [ids[0]], rooms_added: [] });
    const back = await write()
      .post(`/api/v1/jobs/${job.id}/photos/rooms`)
      .send({ operation_id: opId(), photo_ids: [ids[1]], room: null })
      .expect(200);
    expect(back.body).toMatchObject({ room: 'Unsorted', moved: [ids[1]] });

    const updated = await write()
      .patch(`/api/v1/jobs/${job.id}/photos`)
      .send({
        operation_id: opId(),
        photos: [
          { photo_id: ids[0], caption: 'Water line at 14 in' },
          { photo_id: ids[1], name: 'Dryer vent', caption: null },
        ],
      })
      .expect(200);
    expect(
      updated.body.photos.map((p: { caption: string | null; name: string | null }) => [p.caption, p.name]),
    ).toEqual([
      ['Water line at 14 in', 'one.png'],
      [null, 'Dryer vent'],
    ]);
    await write()
      .patch(`/api/v1/jobs/${job.id}/photos`)
      .send({
        operation_id: opId(),
        photos: [
          { photo_id: ids[0], caption: 'a' },
          { photo_id: ids[0], caption: 'b' },
        ],
      })
      .expect(400);

    await feedSettled(t);
    const entries: Entry[] = (
      await read().get('/api/v1/changes?kind=files&limit=100').expect(200)
    ).body.data.filter((e: Entry) => e.job?.id === job.id);
    expect(entries.map((e) => e.action)).toEqual([
      'photos.uploaded',
      'photos.moved',
      'photos.moved',
      'photos.updated',
    ]);
    expect(entries[0].data).toEqual({
      action: 'photos.uploaded',
      photo_ids: ids,
      count: 2,
      rooms: ['Unsorted'],
      rooms_added: [],
      via: 'api',
      on_site_by: null,
    });
    expect(entries[1].data).toEqual({
      action: 'photos.moved',
      photo_ids: ids,
      room: 'Laundry',
      rooms_added: ['Laundry'],
    });
    expect(entries[3].data).toEqual({
      action: 'photos.updated',
      photo_ids: ids,
      fields: ['caption', 'name'],
    });

    // Undo goes back one step at a time: the captions, the moves (the one that moved nothing left
    // nothing to undo), then the upload itself.
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await photosOf(job.id)).data.find((p) => p.id === ids[0])!.caption).toBeNull();
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await photosOf(job.id)).data.every((p) => p.room === 'Laundry')).toBe(true);
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await photosOf(job.id)).data.map((p) => p.room)).toEqual(['Unsorted', 'Unsorted']);
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await photosOf(job.id)).total).toBe(0);
    expect((await read().get(`/api/v1/jobs/${job.id}`).expect(200)).body.photo_count).toBe(0);
  });

  it("keeps an undone upload's files until the retention is over, then sweeps them", async () => {
    const job = await newJob();
    const photo = await jpegWith({ width: 333, height: 222 });
    const [saved] = (
      await upload(job.id, { operation_id: opId() }, [{ data: photo, name: 's.jpg' }]).expect(201)
    ).body.photos;
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    const keys = (await stored()).filter((key) => key.includes(saved.sha256));
    expect(keys).toHaveLength(3);
    expect(await sweepUnusedFiles(t.db, t.media.files, 7)).toBe(0);
    await t
      .db('stored_files')
      .where({ company_id: co.id, sha256: saved.sha256 })
      .update({ last_used_at: t.db.raw("now() - interval '8 days'") });
    expect(await sweepUnusedFiles(t.db, t.media.files, 7)).toBeGreaterThanOrEqual(1);
    expect((await stored()).filter((key) => key.includes(saved.sha256))).toEqual([]);
    // Uploaded again, it is stored again.
    const again = (
      await upload(job.id, { operation_id: opId() }, [{ data: photo, name: 's.jpg' }]).expect(201)
    ).body.photos[0];
    expect((await fetchLink(again.links.thumbnail)).status).toBe(200);
  });

  it('signs links: an expired one is 410, an altered one 403, a page for people and a problem for programs', async () => {
    const job = await newJob();
    const [photo] = (
      await upload(job.id, { operation_id: opId() }, [{ data: await pngOf(50, 50), name: 'l.png' }]).expect(
        201,
      )
    ).body.photos;
    const url = new URL(photo.links.web);
    const altered = new URL(url);
    altered.searchParams.set('e', String(Number(url.searchParams.get('e')) + 3600));
    const problem = await fetchLink(altered.toString(), { Accept: 'application/json' });
    expect(problem.status).toBe(403);
    expect(problem.headers.get('content-type')).toContain('application/problem+json');
    expect((await problem.json()).code).toBe('link_invalid');
    const page = await fetchLink(altered.toString(), { Accept: 'text/html' });
    expect(page.status).toBe(403);
    expect(await page.text()).toMatch(/This link does not work/);

    // Another company's id in the link: the signature no longer matches.
    const elsewhere = new URL(url);
    elsewhere.searchParams.set('c', other.id);
    expect((await fetchLink(elsewhere.toString())).status).toBe(403);

    const expires = Math.floor(Date.now() / 1000) - 10;
    const object = `${photo.id}/web`;
    const signature = await t.media.links.sign({ purpose: 'photo', companyId: co.id, object, expires });
    const expired = `${t.url}/files/photos/${object}?c=${co.id}&e=${expires}&s=${signature}`;
    const gone = await fetchLink(expired, { Accept: 'text/html' });
    expect(gone.status).toBe(410);
    expect(await gone.text()).toMatch(/This link has expired/);
    expect((await (await fetchLink(expired)).json()).code).toBe('link_expired');
    // A link signed for the upload page does not open a photo.
    const forUpload = await t.media.links.sign({
      purpose: 'upload',
      companyId: co.id,
      object,
      expires: expires + 1000,
    });
    expect(
      (await fetchLink(`${t.url}/files/photos/${object}?c=${co.id}&e=${expires + 1000}&s=${forUpload}`))
        .status,
    ).toBe(403);
  });

  it('keeps other companies out and read keys from writing', async () => {
    const job = await newJob();
    const [photo] = (
      await upload(job.id, { operation_id: opId() }, [{ data: await pngOf(60, 60), name: 'o.png' }]).expect(
        201,
      )
    ).body.photos;
    const png = await pngOf(61, 60);
    expect(
      (
        await upload(job.id, { operation_id: opId() }, [{ data: png, name: 'x.png' }], other.writeKey).expect(
          404,
        )
      ).body.code,
    ).toBe('not_found');
    expect(
      (await upload(job.id, { operation_id: opId() }, [{ data: png, name: 'x.png' }], co.readKey).expect(403))
        .body.code,
    ).toBe('write_key_required');
    await read(other).get(`/api/v1/jobs/${job.id}/photos`).expect(404);
    await read(other).get(`/api/v1/photos?photo_ids=${photo.id}`).expect(404);
    const otherJob = await newJob(other);
    await write(other)
      .post(`/api/v1/jobs/${otherJob.id}/photos/rooms`)
      .send({ operation_id: opId(), photo_ids: [photo.id], room: 'Den' })
      .expect(404);
    await write(other)
      .patch(`/api/v1/jobs/${otherJob.id}/photos`)
      .send({ operation_id: opId(), photos: [{ photo_id: photo.id, caption: 'mine' }] })
      .expect(404);
    await read()
      .post(`/api/v1/jobs/${job.id}/photos/rooms`)
      .send({ operation_id: opId(), photo_ids: [photo.id], room: 'Den' })
      .expect(403);
    await read().get(`/api/v1/jobs/${job.id}/photos/upload-link`).expect(403);
    expect((await photosOf(job.id)).data[0]).toMatchObject({ room: 'Unsorted', caption: null });
  });

  it('shows photos to an assistant as image blocks within 1 MB, and as links over HTTP', async () => {
    const job = await newJob();
    const parts = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => ({
        data: await noisyJpeg(2400 + i, 1800),
        name: `n${i}.jpg`,
      })),
    );
    const body: PhotoUpload = (
      await upload(job.id, { operation_id: opId(), room: 'Attic' }, parts).expect(201)
    ).body;
    const http = await read().get(`/api/v1/photos?job_id=${job.job_number}&room=attic&limit=8`).expect(200);
    expect(http.body.photos).toHaveLength(8);
    expect(http.body.photos[0]).toMatchObject({ job_number: job.job_number, room: 'Attic' });
    const one = await read().get(`/api/v1/photos?photo_ids=${body.photos[2].id}`).expect(200);
    expect(one.body.photos.map((p: { id: string }) => p.id)).toEqual([body.photos[2].id]);
    await read().get(`/api/v1/photos?photo_ids=${body.photos[2].id}&job_id=${job.id}`).expect(400);
    await read().get('/api/v1/photos').expect(400);

    const client = await connectMcp(t, co.readKey);
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(['list_job_photos', 'view_photos']));
      expect(tools).not.toContain('upload_job_photos');
      expect(tools).not.toContain('move_photos');
      const result = (await client.callTool({
        name: 'view_photos',
        arguments: { job_id: job.job_number, limit: 8 },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const images = result.content.filter((c) => c.type === 'image');
      const texts = result.content.filter((c) => c.type === 'text');
      expect(images).toHaveLength(8);
      expect(texts).toHaveLength(8);
      expect(JSON.stringify(result).length).toBeLessThan(1_000_000);
      for (const image of images) {
        const meta = await sharp(Buffer.from((image as { data: string }).data, 'base64')).metadata();
        expect(meta.format).toBe('jpeg');
        expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(1024);
      }
      const single = (await client.callTool({
        name: 'view_photos',
        arguments: { photo_ids: [body.photos[0].id] },
      })) as CallToolResult;
      const picture = single.content.find((c) => c.type === 'image') as { data: string };
      expect((await sharp(Buffer.from(picture.data, 'base64')).metadata()).width).toBe(1024);
      expect((single.structuredContent as { photos: unknown[] }).photos).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('moves and captions photos over MCP, and gives an upload link', async () => {
    const job = await newJob();
    const [photo] = (
      await upload(job.id, { operation_id: opId() }, [{ data: await pngOf(70, 70), name: 'm.png' }]).expect(
        201,
      )
    ).body.photos;
    const client = await connectMcp(t, co.writeKey);
    try {
      const moved = (await client.callTool({
        name: 'move_photos',
        arguments: { job_id: job.job_number, operation_id: opId(), photo_ids: [photo.id], room: 'Porch' },
      })) as CallToolResult;
      expect(moved.structuredContent).toMatchObject({
        room: 'Porch',
        moved: [photo.id],
        rooms_added: ['Porch'],
      });
      const captioned = (await client.callTool({
        name: 'update_photos',
        arguments: {
          job_id: job.id,
          operation_id: opId(),
          photos: [{ photo_id: photo.id, caption: 'Soffit' }],
        },
      })) as CallToolResult;
      expect(captioned.structuredContent).toMatchObject({ photos: [{ caption: 'Soffit', room: 'Porch' }] });
      const listed = (await client.callTool({
        name: 'list_job_photos',
        arguments: { job_id: job.id, room: 'porch' },
      })) as CallToolResult;
      expect(listed.structuredContent).toMatchObject({ total: 1, data: [{ id: photo.id }] });
      const link = (await client.callTool({
        name: 'get_photo_upload_link',
        arguments: { job_id: job.job_number, room: 'porch', expires_in: 3600 },
      })) as CallToolResult;
      const answer = link.structuredContent as { url: string; expires_at: string; room: string };
      expect(answer.room).toBe('Porch');
      expect(answer.url).toMatch(new RegExp(`/upload/${job.id}\\?`));
      expect(answer.url).not.toContain(co.writeKey);
      expect(Math.abs(new Date(answer.expires_at).getTime() - Date.now() - 3600_000)).toBeLessThan(5000);
      const page = await fetchLink(answer.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/capture="environment"/);
    } finally {
      await client.close();
    }
  });

  it("uploads through the page link as the link's person, and ends the link when its key is revoked", async () => {
    const job = await newJob();
    const key = (
      await t.http
        .post(`/admin/v1/companies/${co.id}/keys`)
        .set('Authorization', 'Bearer test-admin-token-0123456789')
        .send({ person_id: co.people[2].id, scope: 'write' })
        .expect(201)
    ).body;
    const link = (
      await as(t, key.key).get(`/api/v1/jobs/${job.id}/photos/upload-link?room=Basement`).expect(200)
    ).body;
    const target = new URL(link.url);
    const post = () =>
      t.http
        .post(`${target.pathname}/photos${target.search}`)
        .field('meta', JSON.stringify({ operation_id: 'page-file-1', room: 'Basement' }))
        .attach('photo', pngBuffer, 'page.png');
    const pngBuffer = await pngOf(90, 90);
    const saved = await post().expect(201);
    expect(saved.body.photos[0]).toMatchObject({
      uploaded_via: 'upload_page',
      room: 'Basement',
      uploaded_by: { id: co.people[2].id },
    });
    const retried = await post().expect(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect((await photosOf(job.id)).total).toBe(1);

    await t.http
      .delete(`/admin/v1/keys/${key.id}`)
      .set('Authorization', 'Bearer test-admin-token-0123456789')
      .expect((res) => expect(res.status).toBeLessThan(300));
    const refused = await t.http
      .get(`${target.pathname}${target.search}`)
      .set('Accept', 'text/html')
      .expect(403);
    expect(refused.text).toMatch(/revoked/);
    await post().expect(403);
  });

  it("keeps the upload page out of other sites' frames, sends no referrer, and refuses a cross-site POST", async () => {
    const job = await newJob();
    const link = new URL(
      (await write().get(`/api/v1/jobs/${job.id}/photos/upload-link`).expect(200)).body.url,
    );
    const page = await t.http.get(`${link.pathname}${link.search}`).set('Accept', 'text/html').expect(200);
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(page.headers).toMatchObject({ 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
    const broken = await t.http.get(`${link.pathname}${link.search}x`).set('Accept', 'text/html').expect(403);
    expect(broken.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(broken.headers['x-frame-options']).toBe('DENY');

    const host = new URL(t.url).host;
    const png = await pngOf(44, 40);
    const upload = (headers: Record<string, string>) =>
      t.http
        .post(`${link.pathname}/photos${link.search}`)
        .set(headers)
        .field('meta', JSON.stringify({ operation_id: opId() }))
        .attach('photo', png, 'page.png');
    for (const headers of [
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
      { Origin: `http://${host}`, 'Sec-Fetch-Site': 'cross-site' },
    ] as Record<string, string>[]) {
      const refused = await upload(headers).expect(403);
      expect(refused.body).toMatchObject({ code: 'forbidden_origin' });
    }
    expect((await photosOf(job.id)).total).toBe(0);
    await upload({ Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' }).expect(201);
    expect((await photosOf(job.id)).total).toBe(1);
  });
});

/** Minutes the zone is ahead of UTC at that moment. */
function offsetMinutes(timeZone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return (
    (Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) -
      at.getTime()) /
    60_000
  );
}

/** A photo-like JPEG (noise compresses badly, as real photos do), so that size budgets are tested for real. */
async function noisyJpeg(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 2654435761) >>> 24;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}
