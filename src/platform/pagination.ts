import { ApiError } from './errors';

/** Lists answer `{ data, next_cursor }`; a cursor is an opaque token of where the page ended. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** Reads a cursor made by encodeCursor; anything else is a 400 naming the `cursor` parameter. */
export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, string | number> {
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (keys.every((key) => ['string', 'number'].includes(typeof position[key]))) {
      return position as Record<K, string | number>;
    }
  } catch {
    // fall through to the problem below
  }
  throw badCursor();
}

/** A cursor of positions that are whole numbers (sequence numbers, txids, offsets). */
export function decodeNumericCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, number> {
  const position = decodeCursor(cursor, keys);
  const numbers = Object.fromEntries(keys.map((key) => [key, Number(position[key])])) as Record<K, number>;
  if (keys.every((key) => Number.isSafeInteger(numbers[key]) && numbers[key] >= 0)) return numbers;
  throw badCursor();
}

function badCursor(): ApiError {
  return new ApiError(400, 'invalid_request', 'The cursor is not one this list gave out.', {
    errors: [{ path: '/query/cursor', message: 'must be a next_cursor returned by this list' }],
  });
}

/** Cuts a page from `limit + 1` rows: the extra row only tells that there is a next page. */
export function pageOf<Row, T>(rows: Row[], limit: number, toItem: (row: Row) => T, cursorOf: (row: Row) => string): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  return { data: pageRows.map(toItem), next_cursor: hasMore ? cursorOf(pageRows[pageRows.length - 1]) : null };
}
