/**
 * insertSql (src/infrastructure/db/insert-sql.ts), the INSERT text the write pipeline sends
 * without knex's compiler: the same statement knex would write, values as `?` parameters in
 * order, an absent value as the column's default, knex raws and sub-queries in place with their
 * own parameters, names quoted. Built with a knex that never connects.
 */
import knex, { type Knex } from 'knex';
import { insertSql } from '../../src/infrastructure/db/insert-sql';

let db: Knex;
beforeAll(() => {
  db = knex({ client: 'pg' });
});
afterAll(() => db.destroy());

describe('insertSql', () => {
  it('writes what knex writes for the same rows, down to the parameters', () => {
    // knex sorts the columns of several rows by name; these are in that order already.
    const rows = [
      { author_id: 'per_1', id: 'note_1', job_id: 'job_1', text: 'Set 3 air movers' },
      { author_id: 'per_2', id: 'note_2', job_id: 'job_1', text: null },
    ];
    const ours = insertSql('notes', rows);
    const theirs = db('notes').insert(rows).toSQL();
    expect(ours.sql).toBe(theirs.sql);
    expect(ours.bindings).toEqual(theirs.bindings);
    expect(ours.sql).toBe(
      'insert into "notes" ("author_id", "id", "job_id", "text") values (?, ?, ?, ?), (?, ?, ?, ?)',
    );
    expect(ours.bindings).toEqual([
      'per_1',
      'note_1',
      'job_1',
      'Set 3 air movers',
      'per_2',
      'note_2',
      'job_1',
      null,
    ]);
  });

  it('takes the columns of every row in the order first seen; a value a row lacks is the default, a null is a null', () => {
    const rows: Record<string, unknown>[] = [
      { a: 1, b: undefined },
      { c: 3, a: null },
    ];
    const ours = insertSql('t', rows);
    expect(ours.sql).toBe('insert into "t" ("a", "b", "c") values (?, default, default), (?, default, ?)');
    expect(ours.bindings).toEqual([1, null, 3]);
    const theirs = db('t').insert(rows).toSQL();
    expect(ours.sql.replace(/default/g, 'DEFAULT')).toBe(theirs.sql);
    expect(ours.bindings).toEqual(theirs.bindings);
  });

  it('puts a raw or a sub-query in place of its value, with its parameters where they belong', () => {
    const ours = insertSql('jobs', [
      {
        id: 'job_1',
        job_number: db.raw('nextval(?)', ['job_numbers']),
        status_id: db('statuses').where({ company_id: 'co_1', position: 0 }).select('id'),
        title: 'Birch Lane',
      },
    ]);
    expect(ours.sql).toBe(
      'insert into "jobs" ("id", "job_number", "status_id", "title") values (?, (nextval(?)), (select "id" from "statuses" where "company_id" = ? and "position" = ?), ?)',
    );
    expect(ours.bindings).toEqual(['job_1', 'job_numbers', 'co_1', 0, 'Birch Lane']);
  });

  it('returns the columns asked for, a raw naming itself with its parameters last', () => {
    const ours = insertSql('notes', [{ id: 'note_1', text: 'x' }], ['*', db.raw('? as kind', ['note'])]);
    expect(ours.sql).toBe('insert into "notes" ("id", "text") values (?, ?) returning *, ? as kind');
    expect(ours.bindings).toEqual(['note_1', 'x', 'note']);
  });

  it('quotes names, doubling a quote inside one, so that no name can end the statement', () => {
    const ours = insertSql('we"ird', [{ 'a"); drop table jobs; --': 1 }]);
    expect(ours.sql).toBe('insert into "we""ird" ("a""); drop table jobs; --") values (?)');
    expect(ours.bindings).toEqual([1]);
  });

  it('passes values of any type as parameters, never as text of the statement', () => {
    const when = new Date('2026-03-02T15:00:00Z');
    const ours = insertSql('t', [{ at: when, data: '{"a":1}', ok: true, n: 0, text: "O'Brien; select 1" }]);
    expect(ours.sql).toBe('insert into "t" ("at", "data", "ok", "n", "text") values (?, ?, ?, ?, ?)');
    expect(ours.bindings).toEqual([when, '{"a":1}', true, 0, "O'Brien; select 1"]);
  });
});
