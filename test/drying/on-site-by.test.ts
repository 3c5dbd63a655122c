/**
 * Who did it on site: a technician with no key named by the office's requests (`by`) on
 * readings, drying notes, equipment moves and photos, and an upload link made for them. The
 * answers, the feed, the photo ZIP's manifest show both the teammate and the key's person; the
 * link maker's undo never takes the page's uploads back; unknown, ambiguous and other companies'
 * teammates are refused with nothing saved.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { components } from '../../sdk/src/schema';
import {
  as,
  companyDate,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { pngOf } from '../support/photo-files';

type Schemas = components['schemas'];
type Entry = Schemas['ChangeEntry'];

const ADMIN = 'Bearer test-admin-token-0123456789';
let t: TestApp;
let co: TestCompany;
let other: TestCompany;
let marco: { id: string; name: string };

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
  other = await createCompany(t);
  // A technician with no key.
  const added = (
    await t.http
      .post(`/admin/v1/companies/${co.id}/team`)
      .set('Authorization', ADMIN)
      .send({ name: 'Marco Diaz', role: 'Technician', responsibilities: ['drying monitoring'] })
      .expect(201)
  ).body;
  marco = { id: added.id, name: added.name };
});
afterAll(() => t.close());

const write = () => as(t, co.writeKey);
const read = () => as(t, co.readKey);
const owner = () => ({ id: co.people[0].id, name: co.people[0].name });
const post = (p: string, body: Record<string, unknown>) =>
  write()
    .post(p)
    .send({ operation_id: opId(), ...body });

async function jobWithLog(): Promise<{ id: string; job_number: number; log: string }> {
  const job = (await post('/api/v1/jobs', { customer_name: 'Field Fiona' }).expect(201)).body;
  await post(`/api/v1/jobs/${job.id}/drying-log`, {
    start_date: companyDate(co, -2),
    rooms: [{ name: 'Kitchen' }],
  }).expect(201);
  return { ...job, log: `/api/v1/jobs/${job.id}/drying-log` };
}

async function entriesOf(jobNumber: number): Promise<Entry[]> {
  await feedSettled(t);
  return ((await read().get('/api/v1/changes?limit=100').expect(200)).body.data as Entry[]).filter(
    (e) => e.job?.job_number === jobNumber,
  );
}

describe('who did it on site', () => {
  it('records the teammate beside the key on readings, notes and equipment moves, in the answers and the feed', async () => {
    const job = await jobWithLog();
    await post(`${job.log}/readings`, {
      by: 'marco',
      day: 1,
      area: 'Kitchen',
      readings: [{ metric: 'drywall', value: 30 }],
    }).expect(201);
    await post(`${job.log}/readings`, {
      day: 2,
      area: 'Kitchen',
      readings: [{ metric: 'drywall', value: 25 }],
    }).expect(201);
    const note = (await post(`${job.log}/notes`, { by: marco.id, day: 1, text: 'Toe kicks off' }).expect(201))
      .body.note;
    expect(note).toMatchObject({ created_by: owner(), on_site_by: marco });
    const unit = (
      await post(`${job.log}/equipment`, {
        by: 'Marco Diaz',
        day: 1,
        area: 'Kitchen',
        units: [{ kind: 'air_mover' }],
      }).expect(201)
    ).body.placed[0];
    expect(unit).toMatchObject({ entered_by: owner(), placed_on_site_by: marco, removed_on_site_by: null });
    const removed = (
      await post(`${job.log}/equipment/remove`, { by: 'marco', equipment_ids: [unit.id] }).expect(200)
    ).body.removed[0];
    expect(removed).toMatchObject({
      entered_by: owner(),
      placed_on_site_by: marco,
      removed_on_site_by: marco,
    });

    const log = (await read().get(`/api/v1/jobs/${job.id}/drying-log?detail=readings`).expect(200))
      .body as Schemas['DryingLog'];
    expect(log.readings!.map((r) => [r.day, r.recorded_by, r.on_site_by])).toEqual([
      [1, owner(), marco],
      [2, owner(), null],
    ]);
    expect(log.notes[0].on_site_by).toEqual(marco);
    // Both people of a unit: the key's person who entered it and the teammate who placed it.
    expect(log.equipment.units[0]).toMatchObject({
      entered_by: owner(),
      placed_on_site_by: marco,
      removed_on_site_by: marco,
    });

    const entries = await entriesOf(job.job_number);
    const byAction = (action: string) => entries.filter((e) => e.action === action);
    expect(
      byAction('drying.readings_added').map((e) => [
        (e.data as { on_site_by: unknown }).on_site_by,
        e.summary.endsWith(`by Marco Diaz (entered by ${owner().name})`),
      ]),
    ).toEqual([
      [marco, true],
      [null, false],
    ]); // newest first
    for (const action of ['drying.note_added', 'drying.equipment_placed', 'drying.equipment_removed']) {
      expect(byAction(action)[0]).toMatchObject({
        data: { on_site_by: marco },
        summary: expect.stringContaining(`by Marco Diaz (entered by ${owner().name})`),
      });
    }
    // The job's activity is its feed: the same entries, with both people.
    const activity = (await read().get(`/api/v1/jobs/${job.id}/activity`).expect(200)).body.data as Entry[];
    expect(activity.find((e) => e.action === 'drying.equipment_placed')).toMatchObject({
      data: { on_site_by: marco },
      summary: expect.stringContaining('entered by'),
    });
  });

  it("refuses an unknown, ambiguous or other company's teammate and saves nothing", async () => {
    const job = await jobWithLog();
    const unknown = await post(`${job.log}/readings`, {
      by: 'Nobody Here',
      day: 1,
      area: 'Kitchen',
      readings: [{ metric: 'drywall', value: 30 }],
    }).expect(422);
    expect(unknown.body).toMatchObject({
      code: 'unknown_teammate',
      valid_values: expect.arrayContaining(['Marco Diaz']),
    });
    expect((await post(`${job.log}/notes`, { by: 'Dana', text: 'x' }).expect(422)).body.code).toBe(
      'ambiguous_teammate',
    );
    expect(
      (
        await post(`${job.log}/equipment`, {
          by: other.people[0].id,
          area: 'Kitchen',
          units: [{ kind: 'heater' }],
        }).expect(422)
      ).body.code,
    ).toBe('unknown_teammate');
    expect(
      (await write().get(`/api/v1/jobs/${job.id}/photos/upload-link?for=nobody`).expect(422)).body.code,
    ).toBe('unknown_teammate');
    const log = (await read().get(`/api/v1/jobs/${job.id}/drying-log`).expect(200))
      .body as Schemas['DryingLog'];
    expect({
      readings: log.reading_count,
      notes: log.notes.length,
      units: log.equipment.units.length,
    }).toEqual({ readings: 0, notes: 0, units: 0 });
    // A read key still cannot write, whoever it names.
    await read().post(`${job.log}/notes`).send({ operation_id: opId(), by: 'marco', text: 'x' }).expect(403);
  });

  it("gives a link made for a teammate's uploads to them, and the link maker's undo never takes them back", async () => {
    const job = (await post('/api/v1/jobs', { customer_name: 'Linked Lena' }).expect(201)).body;
    await post(`/api/v1/jobs/${job.id}/notes`, {
      text: 'The office note: the last thing this key did',
    }).expect(201);
    const link = (
      await write().get(`/api/v1/jobs/${job.id}/photos/upload-link?room=Kitchen&for=marco`).expect(200)
    ).body as Schemas['PhotoUploadLink'];
    expect(link.for).toEqual(marco);
    const target = new URL(link.url);
    const uploaded = await t.http
      .post(`${target.pathname}/photos${target.search}`)
      .field('meta', JSON.stringify({ operation_id: opId(), room: 'Kitchen' }))
      .attach('photo', await pngOf(70, 50), 'wall.png')
      .expect(201);
    expect(uploaded.body.photos[0]).toMatchObject({
      uploaded_by: owner(),
      on_site_by: marco,
      uploaded_via: 'upload_page',
    });
    // A link whose teammate was changed is refused: the teammate is signed.
    const altered = target.search.replace(`b=${marco.id}`, `b=${co.people[1].id}`);
    await t.http
      .post(`${target.pathname}/photos${altered}`)
      .field('meta', JSON.stringify({ operation_id: opId() }))
      .attach('photo', await pngOf(71, 50), 'x.png')
      .expect(403);

    // The API takes the teammate in meta too.
    const viaApi = await t.http
      .post(`/api/v1/jobs/${job.id}/photos`)
      .set('Authorization', `Bearer ${co.writeKey}`)
      .field('meta', JSON.stringify({ operation_id: opId(), room: 'Hall', by: 'marco' }))
      .attach('photo', await pngOf(72, 50), 'hall.png')
      .expect(201);
    expect(viaApi.body.photos[0]).toMatchObject({ on_site_by: marco, uploaded_via: 'api' });

    // Undo takes back the API upload, then the office note, never the page's photo.
    const undo = async () =>
      (await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200)).body;
    expect((await undo()).undone).toMatchObject({ tool: 'upload_job_photos' });
    expect((await undo()).undone).toMatchObject({ tool: 'add_note' });
    const photos = (await read().get(`/api/v1/jobs/${job.id}/photos`).expect(200)).body;
    expect(photos.total).toBe(1);

    // The ZIP's manifest names who took it and who uploaded it.
    const zip = (await read().get(`/api/v1/jobs/${job.id}/photos/export`).expect(200))
      .body as Schemas['PhotoExport'];
    const dir = await mkdtemp(path.join(tmpdir(), 'on-site-zip-'));
    try {
      const bytes = Buffer.from(
        await (await fetch(`${t.url}${new URL(zip.url).pathname}${new URL(zip.url).search}`)).arrayBuffer(),
      );
      await writeFile(path.join(dir, 'photos.zip'), bytes);
      execFileSync('unzip', ['-q', path.join(dir, 'photos.zip'), '-d', dir]);
      const [header, row] = (await readFile(path.join(dir, 'manifest.csv'), 'utf8'))
        .trim()
        .split('\r\n')
        .map((line) => line.split(','));
      expect([row[header.indexOf('uploaded_by')], row[header.indexOf('taken_on_site_by')]]).toEqual([
        owner().name,
        'Marco Diaz',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
