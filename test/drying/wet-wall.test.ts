/**
 * The wet wall counted whole (set_drying_chambers over HTTP and MCP): a wall wet to a height or
 * in square feet in all counts whole in the chamber's class, and the part above 2 ft derived from
 * it sizes the air movers; `wet_wall_sqft` alone keeps its meaning (the part above 2 ft); figures
 * that contradict each other or the room's size are refused naming the field, saving nothing.
 */
import type { components } from '../../sdk/src/schema';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { callTool, connectMcp, problemOf } from '../support/mcp';

type ChambersSet = components['schemas']['ChambersSet'];
type DryingChamber = components['schemas']['DryingChamber'];

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
});
afterAll(() => t.close());

const write = () => as(t, co.writeKey);
const read = () => as(t, co.readKey);

/**
 * A job whose estimate sizes the Living room 25 × 14 × 8 ft (floor and ceiling 350 sq ft each,
 * perimeter 78 ft, walls 624 sq ft: 1,324 sq ft of surfaces) and leaves the Porch unsized.
 */
async function livingRoomJob(): Promise<{ id: string }> {
  const job = (
    await write()
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Wall Walker' })
      .expect(201)
  ).body;
  await write()
    .post(`/api/v1/jobs/${job.id}/estimates`)
    .send({
      operation_id: opId(),
      label: 'Mitigation',
      rooms: [{ name: 'Living', length: 25, width: 14, height: 8 }, { name: 'Porch' }],
    })
    .expect(201);
  await write()
    .post(`/api/v1/jobs/${job.id}/drying-log`)
    .send({ operation_id: opId(), rooms: [{ name: 'Living' }, { name: 'Porch' }] })
    .expect(201);
  return job;
}

const chambersOf = (jobId: string) => `/api/v1/jobs/${jobId}/drying-log/chambers`;
const living = (wall: Record<string, number>) => [
  { name: 'Main', category: 1, areas: [{ name: 'Living', wet_floor_sqft: 350, ...wall }] },
];
const setChambers = (jobId: string, chambers: unknown[]) =>
  write().put(chambersOf(jobId)).send({ operation_id: opId(), chambers });
const chamberOf = async (jobId: string, wall: Record<string, number>): Promise<DryingChamber> =>
  ((await setChambers(jobId, living(wall)).expect(200)).body as ChambersSet).chambers[0];
const logChambers = async (jobId: string): Promise<DryingChamber[]> =>
  (await read().get(`/api/v1/jobs/${jobId}/drying-log`).expect(200)).body.chambers;

describe('set_drying_chambers: the wet wall counted whole', () => {
  it('counts a room wet across the floor and 4 ft up the walls (50% of its surfaces) as class 3, given as a height or a total', async () => {
    const job = await livingRoomJob();
    // Wet: floor 350 + walls 78 × 4 = 312: 662 of 1,324 sq ft. Above 2 ft: 78 × 2 = 156.
    // Air movers: 1 + 350/70..50 (5..7) + 156/150..100 (2..2) = 8..10.
    const byHeight = await chamberOf(job.id, { wet_wall_height_ft: 4 });
    expect(byHeight).toMatchObject({
      class: 3,
      class_source: 'computed',
      wet_share_pct: 50,
      plan: { air_movers: { min: 8, max: 10 } },
      areas: [
        {
          name: 'Living',
          wet_floor_sqft: 350,
          wet_wall_sqft: null,
          wet_wall_height_ft: 4,
          wet_wall_total_sqft: null,
          wet_wall_counted: { sqft: 312, above_2ft_sqft: 156 },
        },
      ],
    });
    // get_drying_log says the same.
    expect(await logChambers(job.id)).toEqual([byHeight]);

    const byTotal = await chamberOf(job.id, { wet_wall_total_sqft: 312 });
    expect(byTotal).toMatchObject({
      class: 3,
      wet_share_pct: 50,
      plan: { air_movers: { min: 8, max: 10 } },
      areas: [
        {
          wet_wall_total_sqft: 312,
          wet_wall_height_ft: null,
          wet_wall_counted: { sqft: 312, above_2ft_sqft: 156 },
        },
      ],
    });
  });

  it('keeps wet_wall_sqft alone meaning the wall above 2 ft, the only wall counted (class 2 for the same room)', async () => {
    const job = await livingRoomJob();
    // Wet: floor 350 + 156 = 506 of 1,324 sq ft: 38.2%. The air movers are the same as above.
    expect(await chamberOf(job.id, { wet_wall_sqft: 156 })).toMatchObject({
      class: 2,
      wet_share_pct: 38.2,
      plan: { air_movers: { min: 8, max: 10 } },
      areas: [
        {
          wet_wall_sqft: 156,
          wet_wall_height_ft: null,
          wet_wall_counted: { sqft: 156, above_2ft_sqft: 156 },
        },
      ],
    });
  });

  it('takes feet and inches as decimal feet, a total with its part above 2 ft for uneven walls, and a height the room is not sized for', async () => {
    const job = await livingRoomJob();
    // 4 ft 6 in: 78 × 4.5 = 351 wet, 78 × 2.5 = 195 above 2 ft.
    expect((await chamberOf(job.id, { wet_wall_height_ft: 4.5 })).areas[0]).toMatchObject({
      wet_wall_height_ft: 4.5,
      wet_wall_counted: { sqft: 351, above_2ft_sqft: 195 },
    });
    // One 14 ft wall wet to 6 ft: 84 in all, 56 above 2 ft (a 2 ft band would leave none).
    expect(
      (await chamberOf(job.id, { wet_wall_total_sqft: 84, wet_wall_sqft: 56 })).areas[0].wet_wall_counted,
    ).toEqual({ sqft: 84, above_2ft_sqft: 56 });
    // Walls wet higher than the band everywhere but under 2 ft: nothing above it.
    expect((await chamberOf(job.id, { wet_wall_height_ft: 1.5 })).areas[0].wet_wall_counted).toEqual({
      sqft: 117,
      above_2ft_sqft: 0,
    });

    // The Porch has no size: its wall cannot be counted yet, so the air movers are not planned.
    const porch = (
      (
        await setChambers(job.id, [
          { name: 'Out', category: 1, areas: [{ name: 'Porch', wet_floor_sqft: 40, wet_wall_height_ft: 3 }] },
        ]).expect(200)
      ).body as ChambersSet
    ).chambers[0];
    expect(porch).toMatchObject({
      class: null,
      wet_share_pct: null,
      plan: { air_movers: null },
      areas: [
        { size_known: false, wet_wall_height_ft: 3, wet_wall_counted: { sqft: null, above_2ft_sqft: null } },
      ],
    });
  });

  it('refuses figures that contradict each other or the room, naming each field, and saves nothing', async () => {
    const job = await livingRoomJob();
    const kept = await chamberOf(job.id, { wet_wall_height_ft: 4 });
    const refusals: [Record<string, number>, string, RegExp][] = [
      [{ wet_wall_height_ft: 4, wet_wall_sqft: 156 }, 'wet_wall_height_ft', /wet_wall_sqft gives it again/],
      [{ wet_wall_height_ft: 4, wet_wall_total_sqft: 312 }, 'wet_wall_height_ft', /wet_wall_total_sqft/],
      [{ wet_wall_total_sqft: 100, wet_wall_sqft: 150 }, 'wet_wall_sqft', /more than the 100 sq ft/],
      [{ wet_wall_height_ft: 9 }, 'wet_wall_height_ft', /over Living's height \(8 ft\)/],
      [{ wet_wall_total_sqft: 700 }, 'wet_wall_total_sqft', /more than Living's walls \(624 sq ft\)/],
      [
        { wet_wall_total_sqft: 400, wet_wall_sqft: 100 },
        'wet_wall_total_sqft',
        /300 sq ft below 2 ft.*156 sq ft/,
      ],
    ];
    for (const [wall, field, message] of refusals) {
      const problem = (await setChambers(job.id, living(wall)).expect(422)).body;
      expect(problem).toMatchObject({
        code: 'contradictory_values',
        errors: [{ path: `/body/chambers/0/areas/0/${field}`, message: expect.stringMatching(message) }],
      });
    }
    // Every contradiction of a request is named at once.
    const both = (
      await setChambers(job.id, [
        ...living({ wet_wall_height_ft: 9 }),
        {
          name: 'Out',
          category: 1,
          areas: [{ name: 'Porch', wet_wall_height_ft: 2, wet_wall_total_sqft: 10 }],
        },
      ]).expect(422)
    ).body;
    expect(both.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/chambers/0/areas/0/wet_wall_height_ft',
      '/body/chambers/1/areas/0/wet_wall_height_ft',
    ]);
    expect(await logChambers(job.id)).toEqual([kept]);

    // Wrong types and bounds fail the spec.
    for (const wall of [
      { wet_wall_height_ft: '4 ft' },
      { wet_wall_height_ft: -1 },
      { wet_wall_total_sqft: 12.5 },
    ]) {
      const problem = (await setChambers(job.id, living(wall as never)).expect(400)).body;
      expect(problem.errors[0].path).toMatch(/^\/body\/chambers\/0\/areas\/0\/wet_wall_/);
    }
    expect(await logChambers(job.id)).toEqual([kept]);
  });

  it('undoes back to the earlier wall figures, and replays a request with the new fields', async () => {
    const job = await livingRoomJob();
    await chamberOf(job.id, { wet_wall_sqft: 156 });
    const body = { operation_id: opId(), chambers: living({ wet_wall_height_ft: 4 }) };
    const first = await write().put(chambersOf(job.id)).send(body).expect(200);
    const again = await write().put(chambersOf(job.id)).send(body).expect(200);
    expect([again.headers['idempotent-replayed'], again.body]).toEqual(['true', first.body]);
    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    const [back] = await logChambers(job.id);
    expect([back.class, back.areas[0].wet_wall_sqft, back.areas[0].wet_wall_height_ft]).toEqual([
      2,
      156,
      null,
    ]);
  });

  it('works over MCP: a height gives class 3; a contradiction is a 422 naming the field', async () => {
    const job = await livingRoomJob();
    const client = await connectMcp(t, co.writeKey);
    try {
      const set = await callTool(client, 'set_drying_chambers', {
        job_id: job.id,
        operation_id: opId(),
        chambers: living({ wet_wall_height_ft: 4 }),
      });
      expect(set.isError).toBeFalsy();
      expect((set.structuredContent as ChambersSet).chambers[0]).toMatchObject({
        class: 3,
        wet_share_pct: 50,
      });
      const old = await callTool(client, 'set_drying_chambers', {
        job_id: job.id,
        operation_id: opId(),
        chambers: living({ wet_wall_sqft: 156 }),
      });
      expect((old.structuredContent as ChambersSet).chambers[0].class).toBe(2);
      const refused = await callTool(client, 'set_drying_chambers', {
        job_id: job.id,
        operation_id: opId(),
        chambers: living({ wet_wall_height_ft: 4, wet_wall_total_sqft: 312 }),
      });
      expect(problemOf(refused)).toMatchObject({
        status: 422,
        code: 'contradictory_values',
        errors: [{ path: '/body/chambers/0/areas/0/wet_wall_height_ft' }],
      });
    } finally {
      await client.close();
    }
  });
});
