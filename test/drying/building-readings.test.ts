/**
 * Building readings in add_drying_readings (HTTP and MCP): outside and unaffected readings and
 * references never add a drying area nor an estimate room. A row of only those that names an
 * area the log lacks is refused (422 `unknown_area`, saying to send them without area) and
 * nothing is saved, on a log or on a job with none; without an area they are the building's,
 * and in an area the log has (or one another row adds) they are that area's own.
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
import { callTool, connectMcp, problemOf } from '../support/mcp';

type DryingLog = components['schemas']['DryingLog'];
type ReadingsAdded = components['schemas']['ReadingsAdded'];

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
});
afterAll(() => t.close());

const write = () => as(t, co.writeKey);
const read = () => as(t, co.readKey);
const readingsOf = (jobId: string) => `/api/v1/jobs/${jobId}/drying-log/readings`;
const post = (jobId: string, body: Record<string, unknown>) =>
  write()
    .post(readingsOf(jobId))
    .send({ operation_id: opId(), ...body });

async function newJob(): Promise<{ id: string }> {
  return (
    await write().post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Dry Dora' }).expect(201)
  ).body;
}

/** A job whose log (started three days ago) dries the Kitchen, tied to an estimate with a Kitchen room. */
async function kitchenLog(): Promise<{ id: string }> {
  const job = await newJob();
  await write()
    .post(`/api/v1/jobs/${job.id}/drying-log`)
    .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }], start_date: companyDate(co, -3) })
    .expect(201);
  return job;
}

const air = (temp: number, rh: number) => [
  { metric: 'temp_f', value: temp },
  { metric: 'rh_pct', value: rh },
];
/** The row: unaffected air and reference materials, sent with an area. */
const BEDROOM = {
  area: 'Bedroom',
  location: 'unaffected',
  readings: [...air(70, 40), { metric: 'drywall', value: 9, reference: true }],
};
const KITCHEN = {
  area: 'Kitchen',
  readings: [...air(78, 60), { metric: 'drywall', value: 25, point: 'sink wall' }],
};

/** What a refusal must leave as it was: the log's areas and readings, the estimates' rooms, the credits. */
async function state(jobId: string) {
  const log = await read().get(`/api/v1/jobs/${jobId}/drying-log`);
  const estimates = (await read().get(`/api/v1/jobs/${jobId}`).expect(200)).body.estimates as {
    id: string;
  }[];
  const rooms = await Promise.all(
    estimates.map(async (e) =>
      (await read().get(`/api/v1/estimates/${e.id}`).expect(200)).body.rooms.map(
        (r: { name: string }) => r.name,
      ),
    ),
  );
  const body = log.body as DryingLog;
  return {
    log: log.status === 200 ? [body.areas.map((a) => a.name), body.reading_count] : log.status,
    rooms,
    credits: (await read().get('/api/v1/context').expect(200)).body.credits.remaining,
  };
}

describe('add_drying_readings: building readings add no area', () => {
  it("refuses a row of unaffected air and references naming an area the log lacks, saving nothing; without the area they set the building's goal", async () => {
    const job = await kitchenLog();
    const before = await state(job.id);
    const refused = (await post(job.id, { day: 1, rows: [KITCHEN, BEDROOM] }).expect(422)).body;
    expect(refused).toMatchObject({
      code: 'unknown_area',
      valid_values: ['Kitchen'],
      errors: [
        {
          path: '/body/rows/1/area',
          message: expect.stringContaining('send the building'),
        },
      ],
    });
    expect(refused.detail).toMatch(/without `area`/);
    expect(await state(job.id)).toEqual(before);

    // Sent as the answer says, the Bedroom's reference is the building's: the Kitchen's goal.
    const { area: _bedroom, ...building } = BEDROOM;
    const added = (await post(job.id, { day: 1, rows: [KITCHEN, building] }).expect(201))
      .body as ReadingsAdded;
    expect(added.areas_added).toEqual([]);
    expect(added.materials.map((m) => [m.area, m.goal, m.goal_source])).toEqual([
      ['Kitchen', 9, 'unaffected_reference'],
    ]);
    expect((await state(job.id)).log).toEqual([['Kitchen'], 6]);
  });

  it('refuses outside air, and a reference read in a wet place, in a new area; the body itself names its area at /body/area', async () => {
    const job = await kitchenLog();
    const before = await state(job.id);
    const outside = (
      await post(job.id, { day: 1, area: 'Yard', location: 'outside', readings: air(50, 90) }).expect(422)
    ).body;
    expect(outside.errors).toEqual([
      { path: '/body/area', message: expect.stringContaining('Yard is no area') },
    ]);
    const reference = (
      await post(job.id, {
        day: 1,
        rows: [{ area: 'Den', readings: [{ metric: 'wood', value: 11, reference: true }] }, BEDROOM],
      }).expect(422)
    ).body;
    expect(reference.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/rows/0/area',
      '/body/rows/1/area',
    ]);
    expect(await state(job.id)).toEqual(before);
  });

  it("takes them as an area's own in an area the log has, or one another row of the request adds", async () => {
    const job = await kitchenLog();
    const own = (
      await post(job.id, {
        day: 1,
        rows: [
          { area: 'kitchen', location: 'unaffected', readings: [{ metric: 'drywall', value: 10 }] },
          KITCHEN,
        ],
      }).expect(201)
    ).body as ReadingsAdded;
    expect([own.areas_added, own.materials.map((m) => m.goal_source)]).toEqual([[], ['area_reference']]);
    const den = (
      await post(job.id, {
        day: 2,
        rows: [
          { area: 'Den', location: 'unaffected', readings: [{ metric: 'wood', value: 11 }] },
          { area: 'Den', readings: [{ metric: 'wood', value: 19 }] },
        ],
      }).expect(201)
    ).body as ReadingsAdded;
    expect([den.areas_added, den.materials.map((m) => [m.area, m.goal, m.goal_source])]).toEqual([
      ['Den'],
      [['Den', 11, 'area_reference']],
    ]);
  });

  it('starts no log, no estimate and uses no credit on a job without a log', async () => {
    const job = await newJob();
    const before = await state(job.id);
    expect(before.log).toBe(404);
    const refused = (await post(job.id, { day: 1, rows: [BEDROOM] }).expect(422)).body;
    expect(refused).toMatchObject({
      code: 'unknown_area',
      valid_values: [],
      errors: [{ path: '/body/rows/0/area' }],
    });
    expect(await state(job.id)).toEqual(before);
    // The building's readings alone start the log with no area.
    const { area: _bedroom, ...building } = BEDROOM;
    const started = (await post(job.id, { day: 1, rows: [building] }).expect(201)).body as ReadingsAdded;
    expect([started.log_started, started.areas_added]).toEqual([true, []]);
  });

  it('works over MCP: the refusal names the row and says how to send it', async () => {
    const job = await kitchenLog();
    const client = await connectMcp(t, co.writeKey);
    try {
      const result = await callTool(client, 'add_drying_readings', {
        job_id: job.id,
        operation_id: opId(),
        rows: [{ day: 1, ...BEDROOM }],
      });
      expect(problemOf(result)).toMatchObject({
        status: 422,
        code: 'unknown_area',
        errors: [{ path: '/body/rows/0/area', message: expect.stringContaining('without area') }],
      });
      const tools = (await client.listTools()).tools;
      expect(tools.find((tool) => tool.name === 'add_drying_readings')!.description).toMatch(/no area/);
    } finally {
      await client.close();
    }
  });
});
