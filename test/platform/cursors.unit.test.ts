/**
 * List cursors and pages (src/platform/pagination.ts): a cursor the service made reads back as
 * the position it holds; anything else — forged, truncated, mistyped, out of its column's range
 * — is the one 400 naming /query/cursor, so that no cursor reaches the database with a value its
 * column cannot hold. A page of `limit` rows has a next cursor only when a row is left over.
 */
import fc from 'fast-check';
import { decodeCursor, encodeCursor, INT4_MAX, pageOf, SAFE_MAX } from '../../src/platform/pagination';
import { ApiError } from '../../src/platform/errors';

const SLOTS = { created_at: 'text', job_number: INT4_MAX, seq: SAFE_MAX } as const;
const raw = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function refusal(cursor: string): unknown {
  try {
    decodeCursor(cursor, SLOTS);
  } catch (error) {
    return error;
  }
  return null;
}

describe('cursors', () => {
  it('read back as the position they were made from, typed by their slots', () => {
    const position = {
      created_at: '2026-03-02T15:00:00.123456Z',
      job_number: 16,
      seq: 9_007_199_254_740_991,
    };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/); // safe in a URL as it is
    const decoded: { created_at: string; job_number: number; seq: number } = decodeCursor(cursor, SLOTS);
    expect(decoded).toEqual(position);
  });

  it('round-trip any text without NUL and any number in range', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')),
        fc.integer({ min: 0, max: INT4_MAX }),
        fc.maxSafeNat(),
        (text, n, big) => {
          const position = { created_at: text, job_number: n, seq: big };
          expect(decodeCursor(encodeCursor(position), SLOTS)).toEqual(position);
        },
      ),
    );
  });

  it('keep only the slots asked for', () => {
    expect(decodeCursor(raw({ created_at: 'x', job_number: 1, seq: 2, admin: true }), SLOTS)).toEqual({
      created_at: 'x',
      job_number: 1,
      seq: 2,
    });
  });

  it.each([
    ['not base64url JSON', 'not a cursor!'],
    ['empty', ''],
    ['JSON that is not an object', raw([1, 2, 3])],
    ['null', raw(null)],
    ['a slot missing', raw({ created_at: 'x', job_number: 1 })],
    ['a number as text', raw({ created_at: 5, job_number: 1, seq: 2 })],
    ['text as a number', raw({ created_at: 'x', job_number: '1', seq: 2 })],
    ['a negative number', raw({ created_at: 'x', job_number: -1, seq: 2 })],
    ['a fraction', raw({ created_at: 'x', job_number: 1.5, seq: 2 })],
    ['past an integer column', raw({ created_at: 'x', job_number: INT4_MAX + 1, seq: 2 })],
    ['past a safe integer', raw({ created_at: 'x', job_number: 1, seq: 2 ** 53 })],
    ['NUL in text', raw({ created_at: 'x\u0000', job_number: 1, seq: 2 })],
    ['a truncated cursor', encodeCursor({ created_at: 'x', job_number: 1, seq: 2 }).slice(0, -4)],
  ])('refuse %s with a 400 naming /query/cursor', (_label, cursor) => {
    const error = refusal(cursor);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      extra: { errors: [{ path: '/query/cursor', message: expect.any(String) }] },
    });
  });
});

describe('pages', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1 }));
  const cut = (n: number, limit: number) =>
    pageOf(
      rows(n),
      limit,
      (row) => `item ${row.id}`,
      (row) => encodeCursor({ seq: row.id }),
    );

  it('hold at most limit rows, and a cursor at the last one only when a row was left over', () => {
    expect(cut(4, 3)).toEqual({
      data: ['item 1', 'item 2', 'item 3'],
      next_cursor: encodeCursor({ seq: 3 }),
    });
    expect(cut(3, 3)).toEqual({ data: ['item 1', 'item 2', 'item 3'], next_cursor: null });
    expect(cut(1, 3)).toEqual({ data: ['item 1'], next_cursor: null });
    expect(cut(0, 3)).toEqual({ data: [], next_cursor: null });
  });
});
