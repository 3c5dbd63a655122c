/**
 * Videos over HTTP and MCP: upload by content (MP4, MOV, WebM) with length, codec, displayed size
 * and recording time read from the file; key-less play links that honour ranges, and still
 * frames; refusals that save nothing and store nothing; the size limit; replays, conflicts and
 * duplicates; the list; view_photos with videos; the change feed and undo; other companies and
 * read keys. Upload, links, refusals and the limit run on both file stores (local disk and
 * S3-compatible storage served by s3rver); the rest does not depend on the store and runs once.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type request from 'supertest';
import type { components } from '../../sdk/src/schema';
import {
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { jpegWith } from '../support/photo-files';
import { startS3 } from '../support/s3';
import { makeTestVideos, PATTERN, type TestVideos } from '../support/video-files';
import { connectMcp } from '../support/mcp';

type Schemas = components['schemas'];
type Video = Schemas['Video'];
type VideoUpload = Schemas['VideoUpload'];
type VideoList = Schemas['VideoList'];
type PhotoViews = Schemas['PhotoViews'];
type PhotoUpload = Schemas['PhotoUpload'];
type Entry = Schemas['ChangeEntry'];

/** Small enough for a real (noisy) test video to go over; every other video here is a tenth of it. */
const VIDEO_MAX_BYTES = 200_000;
const SETUP_TIMEOUT = 120_000;

interface Part {
  data: Buffer;
  name: string;
  type?: string;
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let clips: TestVideos;
beforeAll(async () => {
  clips = await makeTestVideos();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await clips?.remove();
});

/** The tools this file tests (tests-by-tool.unit.test.ts finds them in the describe's title). */
const TOOLS = 'upload_job_videos, list_job_videos';

describe.each(['disk', 's3'] as const)(`${TOOLS}: videos on %s storage`, (store) => {
  let t: TestApp;
  let co: TestCompany;
  let other: TestCompany;
  let stopS3: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    let env: Record<string, string> = { VIDEO_MAX_BYTES: String(VIDEO_MAX_BYTES) };
    if (store === 's3') {
      const s3 = await startS3();
      env = { ...env, ...s3.env };
      stopS3 = s3.stop;
    }
    t = await startApp(env);
    co = await createCompany(t);
    other = await createCompany(t);
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    await t?.close();
    await stopS3?.();
  });

  const write = (company = co) => as(t, company.writeKey);
  const read = (company = co) => as(t, company.readKey);

  async function newJob(company = co): Promise<{ id: string; job_number: number }> {
    return (
      await write(company)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Video Vera' })
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
      .post(`/api/v1/jobs/${jobId}/videos`)
      .set('Authorization', `Bearer ${key}`)
      .field('meta', JSON.stringify(meta));
    for (const part of parts)
      req.attach('video', part.data, {
        filename: part.name,
        contentType: part.type ?? 'application/octet-stream',
      });
    return req;
  }

  const stored = async (): Promise<string[]> => (await t.media.files.list(`${co.id}/`)).sort();
  const videosOf = async (jobId: string, query = ''): Promise<VideoList> =>
    (await read().get(`/api/v1/jobs/${jobId}/videos${query}`).expect(200)).body;

  async function fetchLink(url: string, headers: Record<string, string> = {}): Promise<Response> {
    // Links name the service's PUBLIC_URL; the test's service listens on a port of its own.
    const link = new URL(url);
    return fetch(`${t.url}${link.pathname}${link.search}`, { headers });
  }

  async function mcpClient(key: string): Promise<Client> {
    const client = await connectMcp(t, key);
    return client;
  }

  it('takes MP4, MOV and WebM by content and reads length, codec, displayed size and recording time', async () => {
    const job = await newJob();
    const dated = await clips.remux(clips.mp4, { creationTime: '2026-03-04T10:20:30Z' });
    const portrait = await clips.remux(clips.mp4, { rotate: 90 });
    const before = Date.now();
    const res = await upload(
      job.id,
      {
        operation_id: opId(),
        room: 'Kitchen',
        videos: [{ caption: 'Ceiling drip' }, {}, { room: 'Hall' }, {}, { name: 'Stairs' }],
      },
      [
        { data: clips.mp4, name: 'clip.mp4', type: 'video/mp4' },
        // The name and the declared type say MP4; the content is QuickTime.
        { data: clips.mov, name: 'looks-like.mp4', type: 'video/mp4' },
        { data: clips.webm, name: 'VID_3.webm', type: 'video/webm' },
        { data: dated, name: 'dated.mp4' },
        { data: portrait, name: 'portrait.mp4' },
      ],
    ).expect(201);
    const after = Date.now();
    const body: VideoUpload = res.body;
    expect(body).toMatchObject({ job_id: job.id, added: 5, duplicates: 0 });
    expect(
      body.videos.map((v) => [v.format, v.codec, v.width, v.height, v.room, v.caption, v.name, v.duplicate]),
    ).toEqual([
      ['mp4', 'h264', 320, 240, 'Kitchen', 'Ceiling drip', 'clip.mp4', false],
      ['mov', 'h264', 320, 240, 'Kitchen', null, 'looks-like.mp4', false],
      ['webm', 'vp9', 320, 240, 'Hall', null, 'VID_3.webm', false],
      ['mp4', 'h264', 320, 240, 'Kitchen', null, 'dated.mp4', false],
      // Stored 320 × 240 and shown turned a quarter: as displayed.
      ['mp4', 'h264', 240, 320, 'Kitchen', null, 'Stairs', false],
    ]);
    const sent = [clips.mp4, clips.mov, clips.webm, dated, portrait];
    body.videos.forEach((video, i) => {
      expect(video.duration_seconds).toBeCloseTo(PATTERN.seconds, 0);
      expect(video).toMatchObject({
        bytes: sent[i].length,
        sha256: sha256(sent[i]),
        uploaded_via: 'api',
        uploaded_by: { id: co.people[0].id },
      });
    });
    expect(body.videos[3]).toMatchObject({
      recorded_at: '2026-03-04T10:20:30.000Z',
      recorded_at_source: 'metadata',
    });
    for (const video of [body.videos[0], body.videos[1], body.videos[2], body.videos[4]]) {
      expect(video.recorded_at_source).toBe('upload_time');
      expect(new Date(video.recorded_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(new Date(video.recorded_at).getTime()).toBeLessThanOrEqual(after + 1000);
    }
    expect([...body.rooms_added].sort()).toEqual(['Hall', 'Kitchen']);
    // The rooms are the job's now: another upload to "kitchen" takes the job's spelling.
    const photoRooms = (await read().get(`/api/v1/jobs/${job.id}/photos`).expect(200)).body.rooms.map(
      (r: { name: string }) => r.name,
    );
    expect(photoRooms).toEqual(expect.arrayContaining(['Kitchen', 'Hall']));
    const more: VideoUpload = (
      await upload(job.id, { operation_id: opId(), room: 'kitchen' }, [
        { data: await clips.remux(clips.mp4, { comment: 'kitchen' }), name: 'k.mp4' },
      ]).expect(201)
    ).body;
    expect(more).toMatchObject({ rooms_added: [], videos: [{ room: 'Kitchen' }] });
    expect((await videosOf(job.id)).total).toBe(6);
  });

  it('plays through a key-less link that honours ranges, shows a still frame, and refuses an altered link', async () => {
    const job = await newJob();
    const portrait = await clips.remux(clips.mp4, { rotate: 90 });
    const body: VideoUpload = (
      await upload(job.id, { operation_id: opId() }, [
        { data: clips.mp4, name: 'a.mp4' },
        { data: clips.mov, name: 'b.mov' },
        { data: clips.webm, name: 'c.webm' },
        { data: portrait, name: 'd.mp4' },
      ]).expect(201)
    ).body;
    const [mp4, mov, webm, turned] = body.videos;
    expect(mp4.links.play).not.toContain(co.writeKey);
    expect(new Date(mp4.links.expires_at).getTime()).toBeGreaterThan(Date.now());

    for (const [video, type, data] of [
      [mp4, 'video/mp4', clips.mp4],
      [mov, 'video/quicktime', clips.mov],
      [webm, 'video/webm', clips.webm],
    ] as const) {
      const whole = await fetchLink(video.links.play);
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe(type);
      expect(whole.headers.get('accept-ranges')).toBe('bytes');
      expect(Buffer.from(await whole.arrayBuffer()).equals(data)).toBe(true);
    }

    // A player seeks with ranges.
    const size = clips.mp4.length;
    const head = await fetchLink(mp4.links.play, { Range: 'bytes=0-99' });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
    expect(Buffer.from(await head.arrayBuffer()).equals(clips.mp4.subarray(0, 100))).toBe(true);
    const tail = await fetchLink(mp4.links.play, { Range: `bytes=${size - 10}-` });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(clips.mp4.subarray(size - 10))).toBe(true);
    const beyond = await fetchLink(mp4.links.play, { Range: `bytes=${size}-${size + 99}` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${size}`);

    for (const [video, width, height] of [
      [mp4, 320, 240],
      [webm, 320, 240],
      [turned, 240, 320],
    ] as const) {
      const still = await fetchLink(video.links.still);
      expect(still.status).toBe(200);
      expect(still.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await still.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', width, height]);
    }

    const altered = new URL(mp4.links.play);
    const signature = altered.searchParams.get('s')!;
    altered.searchParams.set('s', `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`);
    const refused = await fetchLink(altered.toString(), { Accept: 'application/json' });
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('link_invalid');
    // A signature opens only the video and the variant it was made for.
    const otherVideo = new URL(mp4.links.play);
    otherVideo.pathname = otherVideo.pathname.replace(mp4.id, mov.id);
    expect((await fetchLink(otherVideo.toString())).status).toBe(403);
    const stillWithPlaySignature = new URL(mp4.links.play);
    stillWithPlaySignature.pathname = stillWithPlaySignature.pathname.replace(/\/play$/, '/still');
    expect((await fetchLink(stillWithPlaySignature.toString())).status).toBe(403);
  });

  it('refuses by content, names the part, and saves and stores nothing of a request with one bad part', async () => {
    const job = await newJob();
    // New content for this company, so that storing it would show in the store.
    const good = await clips.remux(clips.mp4, { comment: `fresh-${store}` });
    const filesBefore = await stored();
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    const cases: [Part, number, string, RegExp][] = [
      [
        { data: await jpegWith({ width: 320, height: 240 }), name: 'x.mp4', type: 'video/mp4' },
        415,
        'unsupported_media_type',
        /video part 2 \(x\.mp4\).*JPEG/,
      ],
      [
        { data: pdf, name: 'scan.mp4', type: 'video/mp4' },
        415,
        'unsupported_media_type',
        /video part 2 \(scan\.mp4\).*PDF/,
      ],
      // An MP4 cut off after its first 2000 bytes: the right magic, but no readable video.
      [
        { data: clips.mp4.subarray(0, 2000), name: 'cut.mp4' },
        422,
        'invalid_file',
        /video part 2 \(cut\.mp4\)/,
      ],
    ];
    for (const [bad, status, code, detail] of cases) {
      const res = await upload(job.id, { operation_id: opId() }, [
        { data: good, name: 'ok.mp4' },
        bad,
      ]).expect(status);
      expect(res.body).toMatchObject({ code });
      expect(res.body.detail).toMatch(detail);
    }
    expect((await videosOf(job.id)).total).toBe(0);
    expect(await stored()).toEqual(filesBefore);

    // Alone, the good video is taken and stored (with its still): it was the bad part that kept it out.
    await upload(job.id, { operation_id: opId() }, [{ data: good, name: 'ok.mp4' }]).expect(201);
    expect((await stored()).filter((key) => key.includes(sha256(good)))).toHaveLength(2);
  });

  it('refuses a video over VIDEO_MAX_BYTES with 413 and saves nothing', async () => {
    expect(clips.large.length).toBeGreaterThan(VIDEO_MAX_BYTES);
    const job = await newJob();
    const filesBefore = await stored();
    const res = await upload(job.id, { operation_id: opId() }, [
      { data: clips.large, name: 'long.mp4', type: 'video/mp4' },
    ]).expect(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large' });
    expect(res.body.detail).toMatch(/video part 1 \(long\.mp4\) is over/);
    expect((await videosOf(job.id)).total).toBe(0);
    expect(await stored()).toEqual(filesBefore);
  });

  // What follows does not depend on the file store: once is enough.
  if (store !== 'disk') return;

  it('answers a replay with the first answer and adds nothing; another file under the same operation_id is a conflict; the same video again is a duplicate', async () => {
    const job = await newJob();
    const operation = opId();
    const parts = [{ data: clips.mp4, name: 'a.mp4' }];
    const first = await upload(job.id, { operation_id: operation, room: 'Hall' }, parts).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const filesAfterFirst = await stored();
    const again = await upload(job.id, { operation_id: operation, room: 'Hall' }, parts).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await videosOf(job.id)).total).toBe(1);
    expect(await stored()).toEqual(filesAfterFirst);

    const otherFile = await upload(job.id, { operation_id: operation, room: 'Hall' }, [
      { data: clips.webm, name: 'a.mp4' },
    ]).expect(409);
    expect(otherFile.body.code).toBe('operation_id_conflict');

    const duplicate: VideoUpload = (
      await upload(job.id, { operation_id: opId(), room: 'Kitchen' }, parts).expect(201)
    ).body;
    expect(duplicate).toMatchObject({ added: 0, duplicates: 1, rooms_added: [] });
    // Answered as the video the job has, in the room it is in.
    expect(duplicate.videos.map((v) => [v.id, v.duplicate, v.room])).toEqual([
      [first.body.videos[0].id, true, 'Hall'],
    ]);
    expect((await videosOf(job.id)).total).toBe(1);
  });

  it('lists newest first by recording time, paged and by room, over HTTP and over MCP with a read key', async () => {
    const job = await newJob();
    const recorded = ['2026-03-02T08:00:00Z', '2026-03-03T08:00:00Z', '2026-03-01T08:00:00Z'];
    const parts = await Promise.all(
      recorded.map(async (at, i) => ({
        data: await clips.remux(clips.mp4, { creationTime: at, comment: `list-${i}` }),
        name: `day-${at.slice(8, 10)}.mp4`,
      })),
    );
    // The same room spelled two ways in one request is one room.
    await upload(
      job.id,
      { operation_id: opId(), videos: [{}, { room: 'Garage' }, { room: 'garage' }] },
      parts,
    ).expect(201);

    const all = await videosOf(job.id);
    expect(all.data.map((v) => v.name)).toEqual(['day-03.mp4', 'day-02.mp4', 'day-01.mp4']);
    expect(all.data.map((v) => v.room)).toEqual(['Garage', 'Unsorted', 'Garage']);
    expect(all).toMatchObject({ total: 3, next_cursor: null });

    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 4; page++) {
      const list: VideoList = await videosOf(
        job.id,
        `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(list.data.length).toBeLessThanOrEqual(1);
      expect(list.total).toBe(3);
      seen.push(...list.data.map((v) => v.name ?? ''));
      cursor = list.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(['day-03.mp4', 'day-02.mp4', 'day-01.mp4']);
    expect(cursor).toBeNull();

    expect((await videosOf(job.id, '?room=GARAGE')).data.map((v) => v.name)).toEqual([
      'day-03.mp4',
      'day-01.mp4',
    ]);
    expect((await videosOf(job.id, '?room=Unsorted')).data.map((v) => v.name)).toEqual(['day-02.mp4']);
    // A room the job does not have lists nothing, but the total stays the job's.
    expect(await videosOf(job.id, '?room=Attic')).toMatchObject({ data: [], total: 3 });

    const client = await mcpClient(co.readKey);
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('list_job_videos');
      expect(tools).not.toContain('upload_job_videos');
      const result = (await client.callTool({
        name: 'list_job_videos',
        arguments: { job_id: job.job_number, room: 'garage' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const listed = result.structuredContent as VideoList;
      expect(listed.total).toBe(3);
      expect(listed.data.map((v) => v.name)).toEqual(['day-03.mp4', 'day-01.mp4']);
    } finally {
      await client.close();
    }
  });

  it("shows a video by its still in view_photos, over HTTP and over MCP, and among the job's photos by time", async () => {
    const job = await newJob();
    const dated = await clips.remux(clips.mp4, { creationTime: '2026-03-04T10:20:30Z', comment: 'view' });
    const [video]: Video[] = (
      await upload(job.id, { operation_id: opId(), room: 'Porch' }, [
        { data: dated, name: 'walkthrough.mp4' },
      ]).expect(201)
    ).body.videos;
    const photos: PhotoUpload = (
      await t.http
        .post(`/api/v1/jobs/${job.id}/photos`)
        .set('Authorization', `Bearer ${co.writeKey}`)
        .field('meta', JSON.stringify({ operation_id: opId() }))
        .attach(
          'photo',
          await jpegWith({
            width: 400,
            height: 300,
            taken: { local: '2026-03-05T09:00:00', offset: '+00:00' },
          }),
          'later.jpg',
        )
        .attach(
          'photo',
          await jpegWith({
            width: 400,
            height: 300,
            taken: { local: '2026-03-03T09:00:00', offset: '+00:00' },
          }),
          'earlier.jpg',
        )
        .expect(201)
    ).body;
    const [later, earlier] = photos.photos;

    const one: PhotoViews = (await read().get(`/api/v1/photos?photo_ids=${video.id}`).expect(200)).body;
    expect(one.photos).toHaveLength(1);
    expect(one.photos[0]).toMatchObject({
      id: video.id,
      kind: 'video',
      job_id: job.id,
      room: 'Porch',
      name: 'walkthrough.mp4',
      taken_at: '2026-03-04T10:20:30.000Z',
    });
    expect(one.photos[0].duration_seconds).toBeCloseTo(video.duration_seconds, 3);
    expect(one.photos[0].url).toMatch(new RegExp(`/files/videos/${video.id}/still\\?`));
    const still = await fetchLink(one.photos[0].url);
    expect(still.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(Buffer.from(await still.arrayBuffer())).metadata()).width).toBe(320);

    const byJob: PhotoViews = (await read().get(`/api/v1/photos?job_id=${job.id}&limit=8`).expect(200)).body;
    expect(byJob.photos.map((p) => [p.kind, p.id])).toEqual([
      ['photo', later.id],
      ['video', video.id],
      ['photo', earlier.id],
    ]);
    expect(byJob.photos[0].duration_seconds).toBeNull();

    const client = await mcpClient(co.readKey);
    try {
      const result = (await client.callTool({
        name: 'view_photos',
        arguments: { photo_ids: [video.id] },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const texts = result.content.filter((c) => c.type === 'text');
      const images = result.content.filter((c) => c.type === 'image');
      expect(texts).toHaveLength(1);
      expect(images).toHaveLength(1);
      expect((texts[0] as { text: string }).text).toMatch(new RegExp(`video.*${video.id}`));
      const image = images[0] as { data: string; mimeType: string };
      expect(image.mimeType).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(image.data, 'base64')).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 240]);
      const mixed = (await client.callTool({
        name: 'view_photos',
        arguments: { job_id: job.job_number, limit: 8 },
      })) as CallToolResult;
      expect(mixed.content.filter((c) => c.type === 'image')).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it('writes the upload to the change feed, and undo takes it back', async () => {
    const job = await newJob();
    const body: VideoUpload = (
      await upload(job.id, { operation_id: opId(), room: 'Basement' }, [
        { data: clips.mp4, name: 'one.mp4' },
        { data: clips.webm, name: 'two.webm' },
      ]).expect(201)
    ).body;
    const ids = body.videos.map((v) => v.id);

    await feedSettled(t);
    const entries: Entry[] = (
      await read().get('/api/v1/changes?kind=files&limit=100').expect(200)
    ).body.data.filter((e: Entry) => e.job?.id === job.id);
    expect(entries.map((e) => [e.kind, e.action])).toEqual([['files', 'videos.uploaded']]);
    const { seconds, ...data } = entries[0].data as Schemas['ChangeDataVideosUploaded'];
    expect(data).toEqual({
      action: 'videos.uploaded',
      video_ids: ids,
      count: 2,
      rooms: ['Basement'],
      rooms_added: ['Basement'],
      via: 'api',
    });
    expect(seconds).toBeCloseTo(body.videos[0].duration_seconds + body.videos[1].duration_seconds, 2);

    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect(await videosOf(job.id)).toMatchObject({ total: 0, data: [] });
    // Its links end with it.
    expect((await fetchLink(body.videos[0].links.play, { Accept: 'application/json' })).status).toBe(404);
    await read().get(`/api/v1/photos?photo_ids=${ids[0]}`).expect(404);
  });

  it('keeps other companies out and read keys from writing', async () => {
    const job = await newJob();
    const [video]: Video[] = (
      await upload(job.id, { operation_id: opId() }, [{ data: clips.mp4, name: 'o.mp4' }]).expect(201)
    ).body.videos;
    const parts = [{ data: clips.mov, name: 'x.mov' }];
    expect(
      (await upload(job.id, { operation_id: opId() }, parts, other.writeKey).expect(404)).body.code,
    ).toBe('not_found');
    expect((await upload(job.id, { operation_id: opId() }, parts, co.readKey).expect(403)).body.code).toBe(
      'write_key_required',
    );
    await read(other).get(`/api/v1/jobs/${job.id}/videos`).expect(404);
    await read(other).get(`/api/v1/photos?photo_ids=${video.id}`).expect(404);

    // The company's own read key sees it; a link for another company's id does not open it.
    await read().get(`/api/v1/photos?photo_ids=${video.id}`).expect(200);
    const elsewhere = new URL(video.links.play);
    elsewhere.searchParams.set('c', other.id);
    expect((await fetchLink(elsewhere.toString())).status).toBe(403);
    expect((await videosOf(job.id)).total).toBe(1);
  });
});
