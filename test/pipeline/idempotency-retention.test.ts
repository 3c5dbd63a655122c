/** Idempotency records are purged after their retention (and only then), in batches; a purged operation_id is new again. */
import { purgeExpiredAnswers } from '../../src/platform/idempotency';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;
beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('idempotency records', () => {
  it('older than the retention are purged, younger ones never; a purged operation_id is new again', async () => {
    const old = { operation_id: opId(), customer_name: 'Old Olga' };
    const young = { operation_id: opId(), customer_name: 'Young Yuri' };
    await as(t, co.writeKey).post('/api/v1/jobs').send(old).expect(201);
    await as(t, co.writeKey).post('/api/v1/jobs').send(young).expect(201);
    await t
      .db('idempotency_records')
      .where({ company_id: co.id, operation_id: old.operation_id })
      .update({ created_at: t.db.raw("now() - interval '8 days'") });
    await t
      .db('idempotency_records')
      .where({ company_id: co.id, operation_id: young.operation_id })
      .update({ created_at: t.db.raw("now() - interval '6 days 23 hours'") });

    expect(await purgeExpiredAnswers(t.db, 7)).toBeGreaterThanOrEqual(1);
    const left = await t
      .db('idempotency_records')
      .where({ company_id: co.id })
      .whereIn('operation_id', [old.operation_id, young.operation_id])
      .pluck('operation_id');
    expect(left).toEqual([young.operation_id]);

    const replay = await as(t, co.writeKey).post('/api/v1/jobs').send(young).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const anew = await as(t, co.writeKey).post('/api/v1/jobs').send(old).expect(201);
    expect(anew.headers['idempotent-replayed']).toBeUndefined();
  });

  it('are purged in batches until none is left', async () => {
    const company = await createCompany(t);
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      company_id: company.id,
      operation_id: `bulk-${i}`,
      tool: 'create_job',
      fingerprint: 'x',
      key_id: 'key_bulk',
      status: 201,
      body: '{}',
      created_at: t.db.raw("now() - interval '30 days'"),
    }));
    for (let i = 0; i < rows.length; i += 400)
      await t.db('idempotency_records').insert(rows.slice(i, i + 400));
    expect(await purgeExpiredAnswers(t.db, 7)).toBeGreaterThanOrEqual(1203);
    expect(
      Number(
        (
          await t.db('idempotency_records').where({ company_id: company.id }).count<{ n: number }[]>('* as n')
        )[0].n,
      ),
    ).toBe(0);
  });
});
