/**
 * check_claim_readiness over HTTP and MCP: a job with each fault a desk reviewer questions, the
 * findings with their records, severities and fixing tools, then the same job once each is fixed
 * through the named tool; a job without a log; read keys, other companies and unknown jobs.
 */
import type { components } from '../../sdk/src/schema';
import {
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

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
  other = await createCompany(t);
});
afterAll(() => t.close());

const write = () => as(t, co.writeKey);
const read = (company = co) => as(t, company.readKey);
const readinessOf = async (jobId: string): Promise<Readiness> =>
  (await read().get(`/api/v1/jobs/${jobId}/claim-readiness`).expect(200)).body;
const post = (path: string, body: Record<string, unknown>) =>
  write()
    .post(path)
    .send({ operation_id: opId(), ...body });
const day = (n: number) => companyDate(co, n - 5); // day 5 is today

let photosMade = 0;

/** Photos of a room, each a different image (the same bytes on one job are one photo). */
async function addPhotos(jobId: string, room: string, count: number): Promise<void> {
  const req = t.http
    .post(`/api/v1/jobs/${jobId}/photos`)
    .set('Authorization', `Bearer ${co.writeKey}`)
    .field('meta', JSON.stringify({ operation_id: opId(), room }));
  for (let i = 0; i < count; i++)
    req.attach('photo', await jpegWith({ width: 640 + photosMade++, height: 480 }), {
      filename: `${room}-${i}.jpg`,
      contentType: 'image/jpeg',
    });
  await req.expect(201);
}

/** A day's outside and unaffected air, which the desk review asks for on every day read. */
const buildingAir = (n: number) =>
  (['outside', 'unaffected'] as const).map((location) => ({
    day: n,
    location,
    readings: [
      { metric: 'temp_f', value: 70 },
      { metric: 'rh_pct', value: 45 },
    ],
  }));

/** A job with every fault: the loss 8 days ago, a 5-day log started 4 days ago, one chamber of category 1. */
async function faultyJob(): Promise<{ id: string; estimateId: string; lines: Record<string, string> }> {
  const job = (
    await post('/api/v1/jobs', { customer_name: 'Rita Review', date_of_loss: companyDate(co, -8) }).expect(
      201,
    )
  ).body;
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
      {
        day: 1,
        area: 'Kitchen',
        readings: [
          { metric: 'drywall', value: 30 },
          { metric: 'drywall', value: 11, reference: true },
        ],
      },
      { day: 1, area: 'Hall', readings: [{ metric: 'drywall', value: 25 }] },
      { day: 2, area: 'Kitchen', readings: [{ metric: 'drywall', value: 24 }] },
      { day: 4, area: 'Kitchen', readings: [{ metric: 'drywall', value: 18 }] },
      { day: 4, area: 'Hall', readings: [{ metric: 'drywall', value: 20 }] },
      ...[1, 2, 4].flatMap((n) => buildingAir(n)),
    ],
  }).expect(201);
  await post(`${base}/skip-day`, { day: 3 }).expect(201);
  await post(`${base}/equipment`, {
    area: 'Kitchen',
    day: 1,
    units: [{ kind: 'air_mover', count: 2 }],
  }).expect(201);
  await write()
    .put(`${base}/chambers`)
    .send({
      operation_id: opId(),
      chambers: [
        {
          name: 'Main floor',
          category: 1,
          areas: [{ name: 'Kitchen', wet_floor_sqft: 120 }, { name: 'Hall' }],
        },
      ],
    })
    .expect(200);
  await post(`/api/v1/estimates/${log.estimate_id}/line-items`, {
    line_items: [
      { code: 'DRY-AM-STD', units_per_day: 1, room: 'Kitchen' },
      { code: 'DRY-DH-LGR', units_per_day: 1, room: 'Hall' },
    ],
  }).expect(200);
  await addPhotos(job.id, 'Kitchen', 1);
  const estimate = (await read().get(`/api/v1/estimates/${log.estimate_id}`).expect(200))
    .body as components['schemas']['Estimate'];
  const lines = Object.fromEntries(estimate.rooms.flatMap((r) => r.lines ?? []).map((l) => [l.code, l.id]));
  return { id: job.id, estimateId: log.estimate_id, lines };
}

describe('check_claim_readiness', () => {
  it('lists what a desk reviewer would question, most severe first, and nothing once each is fixed', async () => {
    const job = await faultyJob();
    const before = await readinessOf(job.id);
    expect(
      before.findings.map((f) => [
        f.check,
        f.severity,
        f.record.type,
        f.record.name,
        f.record.day,
        f.fix.tool,
      ]),
    ).toEqual([
      ['monitored_day_without_readings', 'high', 'day', null, 2, 'add_drying_readings'],
      ['not_dry_on_last_day', 'high', 'area', 'Kitchen', 4, 'add_drying_readings'],
      ['not_dry_on_last_day', 'high', 'area', 'Hall', 4, 'add_drying_readings'],
      ['billed_not_placed', 'high', 'area', 'Hall', null, 'update_line_item'],
      ['category_not_reviewed', 'high', 'chamber', 'Main floor', 1, 'set_drying_chambers'],
      ['equipment_not_billed', 'medium', 'area', 'Kitchen', null, 'add_line_items'],
      ['equipment_outside_plan', 'medium', 'chamber', 'Main floor', null, 'set_drying_chambers'],
      ['no_unaffected_reference', 'medium', 'area', 'Hall', null, 'add_drying_readings'],
      ['skipped_day_without_reason', 'medium', 'skip', null, 3, 'skip_drying_day'],
      ['billed_room_without_photo', 'medium', 'room', 'Hall', null, 'get_photo_upload_link'],
      ['room_with_few_photos', 'low', 'room', 'Kitchen', null, 'get_photo_upload_link'],
    ]);
    expect(before).toMatchObject({ ready: false, counts: { high: 5, medium: 5, low: 1 } });
    expect(before.findings[0]).toMatchObject({
      record: { date: day(2) },
      message: expect.stringContaining('no readings in Hall'),
    });
    expect(before.findings[3].record.id).toBe(job.lines['DRY-DH-LGR']);
    expect(before.findings[4].message).toContain('4 days after the loss');

    // Each fix through the tool the finding names.
    const base = `/api/v1/jobs/${job.id}/drying-log`;
    await post(`${base}/readings`, {
      rows: [
        { day: 2, area: 'Hall', readings: [{ metric: 'drywall', value: 23 }] },
        { day: 2, location: 'unaffected', readings: [{ metric: 'drywall', value: 12 }] },
        { day: 5, area: 'Kitchen', readings: [{ metric: 'drywall', value: 11 }] },
        { day: 5, area: 'Hall', readings: [{ metric: 'drywall', value: 12 }] },
        ...buildingAir(5),
        // The dehumidifier placed below in Hall from day 1: its exhaust each day Hall was read.
        ...[1, 2, 4, 5].map((n) => ({
          day: n,
          area: 'Hall',
          location: 'dehumidifier_exhaust' as const,
          readings: [{ metric: 'rh_pct', value: 30 }],
        })),
      ],
    }).expect(201);
    await post(`${base}/skip-day`, { day: 3, reason: 'Homeowner away' }).expect(201);
    expect((await post(`${base}/skip-day`, { day: 3, reason: 'Again' }).expect(409)).body.code).toBe(
      'invalid_state',
    );
    await post(`${base}/equipment`, {
      area: 'Hall',
      day: 1,
      units: [{ kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 70 }],
    }).expect(201);
    await write()
      .patch(`/api/v1/estimates/${job.estimateId}/line-items/${job.lines['DRY-AM-STD']}`)
      .send({ operation_id: opId(), units_per_day: 2 })
      .expect(200);
    await write()
      .put(`${base}/chambers`)
      .send({
        operation_id: opId(),
        chambers: [
          {
            name: 'Main floor',
            category: 2,
            category_reviewed_on: day(2),
            note: 'Cabinets pulled; two movers under the toe kicks do the work.',
            areas: [{ name: 'Kitchen', wet_floor_sqft: 120 }, { name: 'Hall' }],
          },
        ],
      })
      .expect(200);
    await addPhotos(job.id, 'Hall', 2);
    await addPhotos(job.id, 'kitchen', 1);
    const after = await readinessOf(job.id);
    expect(after).toEqual({
      job: expect.objectContaining({ id: job.id }),
      ready: true,
      counts: { high: 0, medium: 0, low: 0 },
      findings: [],
    });
  });

  it('says when readings stop before the billed days and when lines bill past the dry day', async () => {
    const job = (await post('/api/v1/jobs', { customer_name: 'Bill Early' }).expect(201)).body;
    const base = `/api/v1/jobs/${job.id}/drying-log`;
    const log = (
      await post(base, {
        start_date: day(1),
        planned_days: 4,
        rooms: [{ name: 'Kitchen' }, { name: 'Bath' }],
      }).expect(201)
    ).body.log;
    await post(`${base}/readings`, {
      rows: [1, 2].flatMap((n) => [
        {
          day: n,
          area: 'Kitchen',
          readings: [
            { metric: 'drywall', value: 40 - n },
            { metric: 'drywall', value: 12, reference: true },
          ],
        },
        {
          day: n,
          area: 'Bath',
          readings: [
            { metric: 'drywall', value: 14 - n },
            { metric: 'drywall', value: 12, reference: true },
          ],
        },
      ]),
    }).expect(201);
    await post(`${base}/skip-day`, { day: 3, area: 'Kitchen', reason: 'No access' }).expect(201);
    await post(`${base}/skip-day`, { day: 4, area: 'Kitchen', reason: 'No access' }).expect(201);
    await post(`/api/v1/estimates/${log.estimate_id}/line-items`, {
      line_items: [
        { code: 'MON-DAILY', units_per_day: 1, room: 'Kitchen' },
        { code: 'MON-DAILY', units_per_day: 1, room: 'Bath' },
      ],
    }).expect(200);
    const findings = (await readinessOf(job.id)).findings.filter((f) => f.severity === 'high');
    // Kitchen is still wet, read to day 2 of 4 billed; Bath read dry on day 2 but bills 4.
    expect(findings.map((f) => [f.check, f.record.name, f.record.day])).toEqual([
      ['readings_stop_before_billed', 'Kitchen', 2],
      ['not_dry_on_last_day', 'Kitchen', 2],
      ['billed_past_dry', 'Bath', 2],
    ]);
    expect(findings[2]).toMatchObject({ record: { type: 'line' }, fix: { tool: 'update_drying_settings' } });
  });

  it('checks only the photos of a job without a drying log, over MCP too', async () => {
    const job = (await post('/api/v1/jobs', { customer_name: 'No Log' }).expect(201)).body;
    await post(`/api/v1/jobs/${job.id}/estimates`, { rooms: [{ name: 'Den' }] }).expect(201);
    const client = await connectMcp(t, co.readKey);
    try {
      const answer = (await callTool(client, 'check_claim_readiness', { job_id: job.job_number }))
        .structuredContent as Readiness;
      expect(answer).toMatchObject({
        ready: true,
        counts: { high: 0, medium: 0, low: 1 },
        findings: [{ check: 'room_with_few_photos', record: { type: 'room', name: 'Den' } }],
      });
    } finally {
      await client.close();
    }
  });

  it("answers 404 for another company's job and an unknown one, and 401 without a key", async () => {
    const job = (await post('/api/v1/jobs', { customer_name: 'Private' }).expect(201)).body;
    expect((await read(other).get(`/api/v1/jobs/${job.id}/claim-readiness`).expect(404)).body.code).toBe(
      'not_found',
    );
    await read().get('/api/v1/jobs/job_doesNotExist1/claim-readiness').expect(404);
    await read().get('/api/v1/jobs/999999/claim-readiness').expect(404);
    await t.http.get(`/api/v1/jobs/${job.id}/claim-readiness`).expect(401);
  });
});
