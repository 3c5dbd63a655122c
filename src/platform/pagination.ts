import { ApiError } from './errors';

/** Lists answer `{ data, next_cursor }`; a cursor is an opaque token of where the page ended. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * What each position of a cursor holds: `'text'`, or the largest whole number it may be (the
 * column it is compared with: `INT4_MAX` for an `integer` column, `SAFE_MAX` for a `bigint`).
 */
export type CursorSlots = Record<string, 'text' | number>;
export type Position<S extends CursorSlots> = { [K in keyof S]: S[K] extends 'text' ? string : number };

export const INT4_MAX = 2_147_483_647;
export const SAFE_MAX = Number.MAX_SAFE_INTEGER;

export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function fits(value: unknown, slot: 'text' | number): boolean {
  // A forged cursor must never reach the database with a value its column cannot hold.
  if (slot === 'text') return typeof value === 'string' && !value.includes('\u0000');
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= slot;
}

/**
 * Reads a cursor made by encodeCursor with these slots. Anything else (not base64url JSON, a
 * missing or mistyped position, a number out of its column's range, text with NUL) is a 400
 * naming the `cursor` parameter, on every list alike.
 */
export function decodeCursor<S extends CursorSlots>(cursor: string, slots: S): Position<S> {
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (position !== null && typeof position === 'object' && !Array.isArray(position)) {
      const values = position as Record<string, unknown>;
      if (Object.entries(slots).every(([key, slot]) => fits(values[key], slot))) {
        return Object.fromEntries(Object.keys(slots).map((key) => [key, values[key]])) as Position<S>;
      }
    }
  } catch {
    // fall through to the problem below
  }
  throw new ApiError(400, 'invalid_request', 'The cursor is not one this list gave out.', {
    errors: [{ path: '/query/cursor', message: 'must be a next_cursor returned by this list' }],
  });
}

/** Cuts a page from `limit + 1` rows: the extra row only tells that there is a next page. */
export function pageOf<Row, T>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => T,
  cursorOf: (row: Row) => string,
): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: pageRows.map(toItem),
    next_cursor: hasMore ? cursorOf(pageRows[pageRows.length - 1]) : null,
  };
}
