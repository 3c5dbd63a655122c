/**
 * inTransaction (src/infrastructure/db/transaction.ts), the transaction every write runs in: on
 * PostgreSQL the fast transaction (src/infrastructure/db/fast-transaction), or knex's own with
 * FAST_WRITES=off; on PGlite knex's own. All must keep the same promises: committed when the work
 * resolves, rolled back when it throws, nothing sent after the end, a transaction inside on a
 * savepoint, and the connection clean for whoever takes it next. CI runs this file on both
 * databases; each test runs with the fast path on and off.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/infrastructure/db/connect';
import { inTransaction } from '../../src/infrastructure/db/transaction';
import { hasFastTransactions } from '../../src/infrastructure/db/fast-transaction/transaction';

describe.each([
  ['on', true],
  ['off', false],
])('inTransaction, fast writes %s', (_setting, fastWrites) => {
  let db: Knex;
  const table = `tx_probe_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    db = await openDatabase({
      databaseUrl: process.env.DATABASE_URL || undefined,
      dataDir: null,
      fastWrites,
    });
    await db.raw(`create table ${table} (id text primary key, note text)`);
  });
  afterAll(async () => {
    await db.raw(`drop table if exists ${table}`);
    await db.destroy();
  });

  const ids = async () => (await db(table).orderBy('id').pluck('id')) as string[];

  beforeEach(() => db(table).delete());

  it('is the fast transaction exactly when the setting is on, on PostgreSQL', () => {
    expect(hasFastTransactions(db)).toBe(fastWrites && Boolean(process.env.DATABASE_URL));
  });

  it('commits what the work wrote once it resolves, and answers what it returned', async () => {
    const answer = await inTransaction(db, async (trx) => {
      await trx(table).insert({ id: 'a' });
      await trx.raw(`insert into ${table} (id, note) values (?, ?)`, ['b', 'by raw']);
      // The transaction sees its own rows; other connections do not, yet (PGlite has only the one).
      expect(
        await trx(table)
          .count<{ count: number }[]>('* as count')
          .then((rows) => Number(rows[0].count)),
      ).toBe(2);
      if (process.env.DATABASE_URL) expect(await ids()).toEqual([]);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(await ids()).toEqual(['a', 'b']);
  });

  it('rolls everything back when the work throws, and throws what it threw', async () => {
    const failure = new Error('the handler refused');
    await expect(
      inTransaction(db, async (trx) => {
        await trx(table).insert({ id: 'a' });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await ids()).toEqual([]);
  });

  it('rolls back after a statement failed, with the database error, and leaves the connection usable', async () => {
    await expect(
      inTransaction(db, async (trx) => {
        await trx(table).insert({ id: 'a' });
        await trx(table).insert({ id: 'a' });
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual([]);
    // Every pooled connection is out of the failed transaction.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        inTransaction(db, (trx) => trx(table).insert({ id: `n${String(i).padStart(2, '0')}` })),
      ),
    );
    expect(await ids()).toHaveLength(12);
  });

  it('refuses a statement sent after the end, and it changes nothing', async () => {
    let kept: Knex.Transaction | undefined;
    await inTransaction(db, async (trx) => {
      kept = trx;
      await trx(table).insert({ id: 'a' });
    });
    await expect(kept!(table).insert({ id: 'late' })).rejects.toThrow(/already complete/);
    await expect(kept!.raw(`delete from ${table}`)).rejects.toThrow(/already complete/);
    expect(await ids()).toEqual(['a']);
  });

  it('runs a transaction inside it on a savepoint: its rollback keeps the outer rows', async () => {
    await inTransaction(db, async (trx) => {
      await trx(table).insert({ id: 'outer' });
      await trx
        .transaction(async (inner) => {
          await inner(table).insert({ id: 'inner' });
          throw new Error('preview only');
        })
        .catch(() => undefined);
      await trx.transaction(async (inner) => {
        await inner(table).insert({ id: 'kept' });
      });
    });
    expect(await ids()).toEqual(['kept', 'outer']);
  });

  it('gives the handle knex offers: fn, select and a query builder', async () => {
    await inTransaction(db, async (trx) => {
      await trx(table).insert({ id: 'a', note: 'x' });
      const [{ now }] = (await trx.select(trx.fn.now().wrap('(', ') as now'))) as { now: Date }[];
      expect(now).toBeInstanceOf(Date);
      expect(await trx.queryBuilder().from(table).pluck('note')).toEqual(['x']);
      expect(await trx.from(table).where({ id: 'a' }).first('id')).toEqual({ id: 'a' });
    });
  });
});
