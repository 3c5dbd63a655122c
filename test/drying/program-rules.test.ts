/**
 * check_claim_readiness with a carrier program profile: a job of the profile's carrier that
 * breaks each of its seven rules, each finding naming its rule and the profile, then the same job
 * once each is fixed through the tool the finding names; a profile chosen on the job takes over;
 * the same findings over MCP.
 */
import type { components } from '../../sdk/src/schema';
import {
  ADMIN_TOKEN,
  as,
  companyDate,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { callTool, connectMcp } from '../support/mcp';
import { jpegWith } from '../support/photo-files';

type Readiness = components['schemas']['ClaimReadiness'];
type Finding = components['schemas']['ReadinessFinding'];
type Profile = components['schemas']['ProgramProfile'];

let t: TestApp;
let co: TestCompany;
let profile: Profile;

const RULES = [
  { kind: 'photos_per_room', min_photos: 2 },
  { kind: 'equipment_photographed' },
  { kind: 'before_and_after_photos', severity: 'low' },
  { kind: 'daily_atmospherics', severity: 'high' },
  { kind: 'moisture_point_per_material' },
  { kind: 'note_for_line_codes', codes: ['cln-anti'] },
  { kind: 'first_reading_within_hours', hours: 24 },
];

const createProfile = async (body: Record<string, unknown>): Promise<Profile> =>
  (
    await t.http
      .post(`/admin/v1/companies/${co.id}/program-profiles`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send(body)
      .expect(201)
  ).body;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
  profile = await createProfile({ name: 'Sedgwick', carriers: ['Sedgwick'], rules: RULES });
});
afterAll(() => t.close());

const write = () => as(t, co.writeKey);
const post = (path: string, body: Record<string, unknown>) =>
  write()
    .post(path)
    .send({ operation_id: opId(), ...body });
const day = (n: number) => companyDate(co, n - 5); // day 5 is today
const readinessOf = async (jobId: string): Promise<Readiness> =>
  (await as(t, co.readKey).get(`/api/v1/jobs/${jobId}/claim-readiness`).expect(200)).body;
const ruled = (readiness: Readiness) => readiness.findings.filter((f) => f.check === 'program_rule');
const summary = (f: Finding) => [f.rule, f.severity, f.record.type, f.record.name, f.record.day, f.fix.tool];

let photosMade = 0;
/** Photos of a room, each a different image; `taken` (a day) writes it into the photo's EXIF, else it has the upload's time. */
async function addPhotos(jobId: string, room: string, count: number, taken?: string): Promise<void> {
  const req = t.http
    .post(`/api/v1/jobs/${jobId}/photos`)
    .set('Authorization', `Bearer ${co.writeKey}`)
    .field('meta', JSON.stringify({ operation_id: opId(), room }));
  for (let i = 0; i < count; i++)
    req.attach(
      'photo',
      await jpegWith({
        width: 640 + photosMade++,
        height: 480,
        ...(taken ? { taken: { local: `${taken}T10:00:00` } } : {}),
      }),
      { filename: `${room}-${i}.jpg`, contentType: 'image/jpeg' },
    );
  await req.expect(201);
}

const air = [
  { metric: 'temp_f', value: 72 },
  { metric: 'rh_pct', value: 55 },
];

/** A Sedgwick job that breaks every rule: the loss 8 days ago, a log started 4 days ago. */
async function faultyJob(): Promise<{ id: string; base: string; lines: Record<string, string> }> {
  const job = (
    await post('/api/v1/jobs', {
      customer_name: 'Paula Program',
      carrier: ' sedgwick',
      date_of_loss: companyDate(co, -8),
    }).expect(201)
  ).body;
  expect(job.program_profile).toEqual({ id: profile.id, name: 'Sedgwick', applies_because: 'carrier' });
  const base = `/api/v1/jobs/${job.id}/drying-log`;
  const log = (
    await post(base, {
      start_date: day(1),
      planned_days: 5,
      rooms: [{ name: 'Kitchen' }, { name: 'Hall' }],
    }).expect(201)
  ).body.log;
  await post(`${base}/readings`, {
    rows: [
      { day: 1, area: 'Kitchen', readings: [...air, { metric: 'drywall', value: 30 }] },
      { day: 1, area: 'Hall', readings: [{ metric: 'drywall', value: 25, point: 'north wall 2 ft' }] },
      { day: 1, location: 'outside', readings: air },
    ],
  }).expect(201);
  await post(`${base}/equipment`, {
    area: 'Kitchen',
    day: 1,
    units: [{ kind: 'air_mover', count: 2 }],
  }).expect(201);
  await post(`/api/v1/estimates/${log.estimate_id}/line-items`, {
    line_items: [
      { code: 'CLN-ANTI', quantity: 120, room: 'Kitchen' },
      { code: 'DEM-PAD', quantity: 80, room: 'Hall' },
    ],
  }).expect(200);
  await addPhotos(job.id, 'Kitchen', 1);
  const estimate = (await as(t, co.readKey).get(`/api/v1/estimates/${log.estimate_id}`).expect(200))
    .body as components['schemas']['Estimate'];
  const lines = Object.fromEntries(estimate.rooms.flatMap((r) => r.lines ?? []).map((l) => [l.code, l.id]));
  return { id: job.id, base, lines };
}

describe('check_claim_readiness: the rules of the job’s program profile', () => {
  it('names the rule and the profile of each finding, and finds nothing once each is fixed', async () => {
    const job = await faultyJob();
    const before = await readinessOf(job.id);
    expect(ruled(before).map(summary)).toEqual([
      ['daily_atmospherics', 'high', 'day', null, 1, 'add_drying_readings'],
      ['photos_per_room', 'medium', 'room', 'Kitchen', null, 'get_photo_upload_link'],
      ['photos_per_room', 'medium', 'room', 'Hall', null, 'get_photo_upload_link'],
      ['equipment_photographed', 'medium', 'area', 'Kitchen', 1, 'get_photo_upload_link'],
      ['moisture_point_per_material', 'medium', 'area', 'Kitchen', null, 'add_drying_readings'],
      ['moisture_point_per_material', 'medium', 'area', 'Hall', null, 'add_drying_readings'],
      ['note_for_line_codes', 'medium', 'line', 'Kitchen', null, 'add_note'],
      ['first_reading_within_hours', 'medium', 'day', null, 1, 'add_note'],
      ['before_and_after_photos', 'low', 'area', 'Kitchen', null, 'get_photo_upload_link'],
      ['before_and_after_photos', 'low', 'area', 'Hall', null, 'get_photo_upload_link'],
    ]);
    for (const finding of ruled(before)) {
      expect(finding.profile).toEqual({ id: profile.id, name: 'Sedgwick' });
      expect(finding.message).toMatch(/^Sedgwick: /);
    }
    // The service's own checks name no rule; a program's high finding makes the job not ready.
    expect(
      before.findings
        .filter((f) => f.check !== 'program_rule')
        .every((f) => f.rule === null && f.profile === null),
    ).toBe(true);
    expect(before.ready).toBe(false);
    const messages = ruled(before).map((f) => f.message);
    expect(messages[0]).toContain('no unaffected air, Hall');
    expect(messages[4]).toContain('drywall (read without naming the point)');
    expect(messages[5]).toContain('pad (billed, never read)');
    expect(messages[6]).toContain('CLN-ANTI');
    expect(ruled(before)[6]!.record.id).toBe(job.lines['CLN-ANTI']);
    expect(messages[7]).toContain('96 hours after the date of loss');
    expect(messages[9]).toContain('Hall has no "before" photo (on or before');

    // Each fixed with the tool its finding names.
    await post(`${job.base}/readings`, {
      rows: [
        { day: 1, location: 'unaffected', readings: air },
        { day: 1, area: 'Hall', readings: [...air, { metric: 'pad', value: 20, point: 'center' }] },
        { day: 1, area: 'Kitchen', readings: [{ metric: 'drywall', value: 29, point: 'sink wall 1 ft' }] },
      ],
    }).expect(201);
    await addPhotos(job.id, 'Kitchen', 2, day(1));
    await addPhotos(job.id, 'Hall', 2, day(1));
    await post(`/api/v1/jobs/${job.id}/notes`, {
      text: 'cln-anti: sink cabinet wet for two days before we came.',
    }).expect(201);
    await write()
      .patch(`/api/v1/jobs/${job.id}/overview`)
      .send({ date_of_loss: companyDate(co, -5) })
      .expect(200);
    expect(ruled(await readinessOf(job.id))).toEqual([]);

    // A profile chosen on the job takes over from the carrier's.
    const strict = await createProfile({
      name: 'Strict photos',
      carriers: [],
      rules: [{ kind: 'photos_per_room', min_photos: 3 }],
    });
    await write()
      .patch(`/api/v1/jobs/${job.id}/overview`)
      .send({ program_profile_id: strict.id })
      .expect(200);
    const chosen = ruled(await readinessOf(job.id));
    expect(chosen.map((f) => [f.rule, f.record.name, f.profile?.name])).toEqual([
      ['photos_per_room', 'Hall', 'Strict photos'],
    ]);
    expect(chosen[0]!.message).toBe(
      'Strict photos: Hall has 2 photos filed in it; the program asks for at least 3 labelled with the room.',
    );

    // Over MCP, the same findings with their rule and profile.
    const client = await connectMcp(t, co.readKey);
    const result = await callTool(client, 'check_claim_readiness', { job_id: job.id });
    expect(
      (result.structuredContent as Readiness).findings
        .filter((f) => f.check === 'program_rule')
        .map((f) => [f.rule, f.profile]),
    ).toEqual([['photos_per_room', { id: strict.id, name: 'Strict photos' }]]);
    await client.close();
  });

  it('checks nothing more for a job whose carrier has no profile', async () => {
    const job = (
      await post('/api/v1/jobs', { customer_name: 'No Program', carrier: 'State Farm' }).expect(201)
    ).body;
    await post(`/api/v1/jobs/${job.id}/drying-log`, {
      start_date: day(1),
      planned_days: 5,
      rooms: [{ name: 'Den' }],
    }).expect(201);
    const readiness = await readinessOf(job.id);
    expect(readiness.findings.length).toBeGreaterThan(0);
    expect(ruled(readiness)).toEqual([]);
  });
});
