/** Estimates: credits, regional prices, rooms, day-billed lines, per-line errors, totals to the cent. */
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';

let t: TestApp;
let co: TestCompany;

interface Item {
  code: string;
  per_day: boolean;
  unit_price_cents: number;
}

async function newJob(region: string | undefined, key = co.writeKey): Promise<string> {
  const res = await as(t, key)
    .post('/api/v1/jobs')
    .send({ operation_id: opId(), customer_name: 'Maria Alvarez', region })
    .expect(201);
  return res.body.id;
}

async function priced(codes: string[], region: string): Promise<Map<string, Item>> {
  const query = codes.map((c) => `codes=${encodeURIComponent(c)}`).join('&');
  const res = await as(t, co.readKey).get(`/api/v1/price-list/items?${query}&region=${region}`).expect(200);
  return new Map((res.body.items as Item[]).map((item) => [item.code, item]));
}

async function firstItem(q: string, perDay: boolean): Promise<Item> {
  const res = await as(t, co.readKey)
    .get(`/api/v1/price-list?q=${encodeURIComponent(q)}&limit=50`)
    .expect(200);
  const item = (res.body.data as Item[]).find((i) => i.per_day === perDay);
  if (!item) throw new Error(`no ${perDay ? 'day-billed ' : ''}item for ${q}`);
  return item;
}

const halfUp = (numerator: number, denominator: number) =>
  Math.floor((2 * numerator + denominator) / (2 * denominator));

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 20 });
  await t.http
    .put(`/admin/v1/companies/${co.id}/estimate-rates`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ overhead_pct: 10, profit_pct: 10, tax_pct: 6.25 })
    .expect(200);
});
afterAll(() => t.close());

describe('create_estimate', () => {
  it('uses one credit, reports it, and a replay uses none', async () => {
    const jobId = await newJob('IL');
    const before = (await as(t, co.readKey).get('/api/v1/context').expect(200)).body.credits.remaining;
    const body = { operation_id: opId(), scope_summary: 'Dishwasher supply line failure' };
    const first = await as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/estimates`).send(body).expect(201);
    expect(first.body.credits).toEqual({ used: 1, remaining: before - 1 });
    const replay = await as(t, co.writeKey).post(`/api/v1/jobs/${jobId}/estimates`).send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await as(t, co.readKey).get('/api/v1/context')).body.credits.remaining).toBe(before - 1);
    const job = await as(t, co.readKey).get(`/api/v1/jobs/${jobId}`).expect(200);
    expect(job.body.estimates).toEqual([
      { id: first.body.estimate.id, label: 'Estimate 1', total_cents: 0, currency: 'USD' },
    ]);
  });

  it('answers 402 with no credit left and saves nothing', async () => {
    const poor = await createCompany(t, { credits: 0 });
    const jobId = (await as(t, poor.writeKey).post('/api/v1/jobs').send({ operation_id: opId() }).expect(201))
      .body.id;
    const feedBefore = (await as(t, poor.readKey).get('/api/v1/changes?kind=estimates').expect(200)).body.data
      .length;
    const res = await as(t, poor.writeKey)
      .post(`/api/v1/jobs/${jobId}/estimates`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] })
      .expect(402);
    expect(res.body.code).toBe('insufficient_credits');
    expect((await as(t, poor.readKey).get(`/api/v1/jobs/${jobId}`)).body.estimates).toEqual([]);
    expect((await as(t, poor.readKey).get('/api/v1/changes?kind=estimates')).body.data.length).toBe(
      feedBefore,
    );
    expect(await t.db('estimate_rooms').where({ company_id: poor.id }).count('id as n').first()).toEqual({
      n: 0,
    });
  });

  it('prices catalog lines by the job region: two regions, two prices', async () => {
    const item = await firstItem('dehumidifier', true);
    const [il, ca] = [
      (await priced([item.code], 'IL')).get(item.code)!,
      (await priced([item.code], 'CA')).get(item.code)!,
    ];
    expect(il.unit_price_cents).not.toBe(ca.unit_price_cents);
    for (const [region, expected] of [
      ['IL', il],
      ['CA', ca],
    ] as const) {
      const jobId = await newJob(region);
      const res = await as(t, co.writeKey)
        .post(`/api/v1/jobs/${jobId}/estimates`)
        .send({
          operation_id: opId(),
          rooms: [{ name: 'Kitchen', drying_days: 3 }],
          line_items: [{ code: item.code, units_per_day: 2, room: 'kitchen' }],
        })
        .expect(201);
      expect(res.body.estimate.region.code).toBe(region);
      const line = res.body.estimate.rooms[0].lines[0];
      expect(line.unit_price_cents).toBe(expected.unit_price_cents);
      expect(line.quantity).toBe(6);
    }
  });

  it('refuses a job of another company, and a read key', async () => {
    const other = await createCompany(t);
    const theirJob = (
      await as(t, other.writeKey).post('/api/v1/jobs').send({ operation_id: opId() }).expect(201)
    ).body.id;
    expect(
      (
        await as(t, co.writeKey)
          .post(`/api/v1/jobs/${theirJob}/estimates`)
          .send({ operation_id: opId() })
          .expect(404)
      ).body.code,
    ).toBe('not_found');
    const jobId = await newJob('IL');
    expect(
      (
        await as(t, co.readKey)
          .post(`/api/v1/jobs/${jobId}/estimates`)
          .send({ operation_id: opId() })
          .expect(403)
      ).body.code,
    ).toBe('write_key_required');
  });
});

describe('add_rooms, update_room, add_line_items, update_line_item, remove_line_item: rooms and lines', () => {
  let estimateId: string;
  let roomId: string;

  beforeAll(async () => {
    const jobId = await newJob('IL');
    const res = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/estimates`)
      .send({
        operation_id: opId(),
        drying_days: 4,
        rooms: [{ name: 'Kitchen', length: 14, width: 12.5, height: 8, demo_days: 1, drying_days: 3 }],
      })
      .expect(201);
    estimateId = res.body.estimate.id;
    roomId = res.body.estimate.rooms[0].id;
    expect(res.body.estimate.rooms[0]).toMatchObject({
      floor_area_sf: 175,
      perimeter_lf: 53,
      wall_area_sf: 424,
      volume_cf: 1400,
    });
  });

  it('adds good lines and returns each bad one with its reason', async () => {
    const dayItem = await firstItem('air mover', true);
    const plain = await firstItem('drywall', false);
    const typo = `${dayItem.code.slice(0, -1)}X`;
    const res = await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimateId}/line-items`)
      .send({
        operation_id: opId(),
        line_items: [
          { code: plain.code, quantity: 120.5, room_id: roomId },
          { code: typo, quantity: 1 },
          { code: dayItem.code, units_per_day: 3, room: 'Hallway' },
          { code: dayItem.code, units_per_day: 2 },
          { description: 'Replace supply line', unit: 'ea', quantity: 1, unit_price: '85.50' },
          { description: 'No price', unit: 'EA', quantity: 1 },
        ],
      })
      .expect(200);
    expect(res.body.added.map((l: { description: string }) => l.description)).toEqual([
      expect.any(String),
      expect.any(String),
      'Replace supply line',
    ]);
    expect(res.body.added[1]).toMatchObject({
      code: dayItem.code,
      units_per_day: 2,
      quantity: 8,
      room_id: null,
    });
    expect(res.body.added[2]).toMatchObject({
      source: 'own',
      unit: 'EA',
      unit_price_cents: 8550,
      total_cents: 8550,
    });
    const rejected = res.body.rejected as {
      index: number;
      problem: string;
      near_matches?: { code: string }[];
    }[];
    expect(rejected.map((r) => [r.index, r.problem])).toEqual([
      [1, 'unknown_code'],
      [2, 'unknown_room'],
      [5, 'missing_fields'],
    ]);
    expect(rejected[0].near_matches!.map((m) => m.code)).toContain(dayItem.code);
  });

  it('refuses a day-billed line when there are no drying days', async () => {
    const jobId = await newJob('IL');
    const dayItem = await firstItem('dehumidifier', true);
    const res = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/estimates`)
      .send({
        operation_id: opId(),
        rooms: [{ name: 'Basement' }],
        line_items: [{ code: dayItem.code, units_per_day: 1, room: 'Basement' }],
      })
      .expect(201);
    expect(res.body.rejected_lines).toEqual([
      expect.objectContaining({ index: 0, problem: 'no_drying_days' }),
    ]);
    expect(res.body.estimate.rooms[0].lines).toEqual([]);
  });

  it('day-billed quantities follow the room drying days; a room name updates that room', async () => {
    const dayItem = await firstItem('air mover', true);
    const added = await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimateId}/line-items`)
      .send({ operation_id: opId(), line_items: [{ code: dayItem.code, units_per_day: 4, room_id: roomId }] })
      .expect(200);
    expect(added.body.added[0].quantity).toBe(12);
    const updated = await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimateId}/rooms`)
      .send({ rooms: [{ name: 'KITCHEN', drying_days: 5 }] })
      .expect(200);
    expect(updated.body.rooms).toHaveLength(1);
    const line = updated.body.rooms[0].lines.find((l: { id: string }) => l.id === added.body.added[0].id);
    expect(line.quantity).toBe(20);
    const patched = await as(t, co.writeKey)
      .patch(`/api/v1/estimates/${estimateId}/rooms/${roomId}`)
      .send({ drying_days: 2 })
      .expect(200);
    expect(
      patched.body.rooms[0].lines.find((l: { id: string }) => l.id === added.body.added[0].id).quantity,
    ).toBe(8);
  });

  it('update_line_item changes quantity or note but never the price; remove_line_item removes', async () => {
    const plain = await firstItem('baseboard', false);
    const added = await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimateId}/line-items`)
      .send({ operation_id: opId(), line_items: [{ code: plain.code, quantity: 10 }] })
      .expect(200);
    const line = added.body.added[0];
    const changed = await as(t, co.writeKey)
      .patch(`/api/v1/estimates/${estimateId}/line-items/${line.id}`)
      .send({ quantity: 12.25, note: 'north wall' })
      .expect(200);
    expect(changed.body.line).toMatchObject({
      quantity: 12.25,
      note: 'north wall',
      unit_price_cents: line.unit_price_cents,
      total_cents: halfUp(1225 * line.unit_price_cents, 100),
    });
    await as(t, co.writeKey)
      .patch(`/api/v1/estimates/${estimateId}/line-items/${line.id}`)
      .send({ unit_price_cents: 1 })
      .expect(400);
    const removed = await as(t, co.writeKey)
      .delete(`/api/v1/estimates/${estimateId}/line-items/${line.id}`)
      .expect(200);
    expect(removed.body.removed).toBe(line.id);
    await as(t, co.writeKey).delete(`/api/v1/estimates/${estimateId}/line-items/${line.id}`).expect(404);
  });

  it('another company cannot read or change the estimate', async () => {
    const other = await createCompany(t);
    await as(t, other.readKey).get(`/api/v1/estimates/${estimateId}`).expect(404);
    await as(t, other.writeKey)
      .post(`/api/v1/estimates/${estimateId}/rooms`)
      .send({ rooms: [{ name: 'Attic' }] })
      .expect(404);
    await as(t, co.readKey)
      .post(`/api/v1/estimates/${estimateId}/rooms`)
      .send({ rooms: [{ name: 'Attic' }] })
      .expect(403);
  });
});

describe('get_estimate: totals to the cent', () => {
  it('computes line, room and estimate totals of a realistic estimate exactly', async () => {
    const jobId = await newJob('IL');
    const items = {
      extraction: await firstItem('extraction', false),
      airMover: await firstItem('air mover', true),
      dehu: await firstItem('dehumidifier', true),
      drywall: await firstItem('drywall', false),
      antimicrobial: await firstItem('antimicrobial', false),
    };
    const res = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/estimates`)
      .send({
        operation_id: opId(),
        drying_days: 3,
        rooms: [
          { name: 'Kitchen', length: 14, width: 12, height: 8, drying_days: 4 },
          { name: 'Hall', length: 20, width: 4, height: 8, drying_days: 3 },
        ],
        line_items: [
          { code: items.extraction.code, quantity: 168, room: 'Kitchen' },
          { code: items.airMover.code, units_per_day: 3, room: 'Kitchen' },
          { code: items.dehu.code, units_per_day: 1, room: 'Kitchen' },
          { code: items.drywall.code, quantity: 37.33, room: 'Kitchen' },
          { code: items.extraction.code, quantity: 80, room: 'Hall' },
          { code: items.airMover.code, units_per_day: 2, room: 'Hall' },
          { code: items.antimicrobial.code, quantity: 248.5, room: 'Hall' },
          { code: items.dehu.code, units_per_day: 1 },
          {
            description: 'Emergency service call, after hours',
            unit: 'EA',
            quantity: 1,
            unit_price_cents: 29500,
          },
        ],
      })
      .expect(201);
    expect(res.body.rejected_lines).toEqual([]);
    const il = await priced(
      Object.values(items).map((i) => i.code),
      'IL',
    );
    const price = (code: string) => il.get(code)!.unit_price_cents;
    const line = (hundredths: number, cents: number) => halfUp(hundredths * cents, 100);
    const kitchen =
      line(16800, price(items.extraction.code)) +
      line(300 * 4, price(items.airMover.code)) +
      line(100 * 4, price(items.dehu.code)) +
      line(3733, price(items.drywall.code));
    const hall =
      line(8000, price(items.extraction.code)) +
      line(200 * 3, price(items.airMover.code)) +
      line(24850, price(items.antimicrobial.code));
    const unassigned = line(100 * 3, price(items.dehu.code)) + 29500;
    const subtotal = kitchen + hall + unassigned;
    const overhead = halfUp(subtotal * 1000, 10000);
    const profit = halfUp(subtotal * 1000, 10000);
    const tax = halfUp((subtotal + overhead + profit) * 625, 10000);

    const estimate = (await as(t, co.readKey).get(`/api/v1/estimates/${res.body.estimate.id}`).expect(200))
      .body;
    expect(
      estimate.rooms.map((r: { name: string; subtotal_cents: number }) => [r.name, r.subtotal_cents]),
    ).toEqual([
      ['Kitchen', kitchen],
      ['Hall', hall],
    ]);
    expect(estimate.totals).toEqual({
      subtotal_cents: subtotal,
      overhead_cents: overhead,
      profit_cents: profit,
      tax_cents: tax,
      total_cents: subtotal + overhead + profit + tax,
      currency: 'USD',
    });
    expect(estimate.rates).toEqual({ overhead_pct: 10, profit_pct: 10, tax_pct: 6.25 });

    const roomTotals = (
      await as(t, co.readKey).get(`/api/v1/estimates/${estimate.id}?view=room_totals`).expect(200)
    ).body;
    expect(roomTotals.rooms[0].lines).toBeUndefined();
    // The answer says what room subtotals leave out: with the lines in no room they add up to
    // the subtotal, not the total.
    expect(roomTotals.room_subtotals_exclude).toEqual(['overhead', 'profit', 'tax']);
    const inRooms = estimate.rooms.reduce(
      (sum: number, r: { subtotal_cents: number }) => sum + r.subtotal_cents,
      0,
    );
    const inNoRoom = estimate.unassigned_lines.reduce(
      (sum: number, l: { total_cents: number }) => sum + l.total_cents,
      0,
    );
    expect(inRooms + inNoRoom).toBe(estimate.totals.subtotal_cents);
    expect(roomTotals.unassigned_lines).toEqual([]);
    const hallOnly = (await as(t, co.readKey).get(`/api/v1/estimates/${estimate.id}?room=hall`).expect(200))
      .body;
    expect(hallOnly.rooms.map((r: { name: string }) => r.name)).toEqual(['Hall']);
    expect(hallOnly.rooms[0].lines).toHaveLength(3);
    await as(t, co.readKey).get(`/api/v1/estimates/${estimate.id}?room=garage`).expect(404);
    expect((await as(t, co.readKey).get(`/api/v1/jobs/${jobId}`)).body.estimates[0].total_cents).toBe(
      subtotal + overhead + profit + tax,
    );
  });
});

describe('a final estimate', () => {
  it('can be read but refuses every change with 409 invalid_state', async () => {
    const jobId = await newJob('IL');
    const created = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/estimates`)
      .send({
        operation_id: opId(),
        rooms: [{ name: 'Kitchen', drying_days: 2 }],
        line_items: [{ description: 'Haul-off', unit: 'EA', quantity: 1, unit_price_cents: 15000 }],
      })
      .expect(201);
    const estimate = created.body.estimate;
    await t
      .db('estimates')
      .where({ id: estimate.id })
      .update({ status: 'final', finalized_at: t.db.fn.now() });
    const lineId = estimate.unassigned_lines[0].id;
    const attempts = [
      as(t, co.writeKey)
        .post(`/api/v1/estimates/${estimate.id}/rooms`)
        .send({ rooms: [{ name: 'Hall' }] }),
      as(t, co.writeKey)
        .patch(`/api/v1/estimates/${estimate.id}/rooms/${estimate.rooms[0].id}`)
        .send({ drying_days: 3 }),
      as(t, co.writeKey)
        .post(`/api/v1/estimates/${estimate.id}/line-items`)
        .send({
          operation_id: opId(),
          line_items: [{ description: 'x', unit: 'EA', quantity: 1, unit_price_cents: 1 }],
        }),
      as(t, co.writeKey).patch(`/api/v1/estimates/${estimate.id}/line-items/${lineId}`).send({ quantity: 2 }),
      as(t, co.writeKey).delete(`/api/v1/estimates/${estimate.id}/line-items/${lineId}`),
      as(t, co.writeKey).patch(`/api/v1/estimates/${estimate.id}`).send({ label: 'Renamed' }),
    ];
    for (const attempt of attempts) expect((await attempt.expect(409)).body.code).toBe('invalid_state');
    const read = await as(t, co.readKey).get(`/api/v1/estimates/${estimate.id}`).expect(200);
    expect(read.body.status).toBe('final');
    expect(read.body.totals.subtotal_cents).toBe(15000);
  });
});

describe('estimate writes go through the pipeline', () => {
  it('records them in the feed as estimates, and undo takes them back', async () => {
    const jobId = await newJob('IL');
    const created = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${jobId}/estimates`)
      .send({ operation_id: opId() })
      .expect(201);
    const estimateId = created.body.estimate.id;
    await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimateId}/rooms`)
      .send({ rooms: [{ name: 'Kitchen', drying_days: 2 }] })
      .expect(200);
    await feedSettled(t);
    const feed = await as(t, co.readKey).get('/api/v1/changes?kind=estimates&limit=100').expect(200);
    expect(feed.body.data.slice(-2).map((e: { action: string }) => e.action)).toEqual([
      'estimate.created',
      'estimate.rooms_added',
    ]);
    await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await as(t, co.readKey).get(`/api/v1/estimates/${estimateId}`).expect(200)).body.rooms).toEqual(
      [],
    );
    const operationId = opId();
    await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimateId}/rooms`)
      .send({ operation_id: operationId, rooms: [{ name: 'A' }] })
      .expect(200);
    const conflict = await as(t, co.writeKey)
      .post(`/api/v1/estimates/${estimateId}/rooms`)
      .send({ operation_id: operationId, rooms: [{ name: 'B' }] })
      .expect(409);
    expect(conflict.body.code).toBe('operation_id_conflict');
  });
});
