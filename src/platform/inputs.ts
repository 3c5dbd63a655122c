/**
 * Checks that apply to every string of every request, whatever the operation and transport,
 * after the spec's own validation and before any handler or database query sees the values:
 * path and query parameters, body fields at any depth, MCP arguments. Called by the request
 * checks of ./validation.ts, which every route and MCP call passes, so that none can forget it.
 */
import { invalidRequest, type FieldError } from './errors';

/**
 * PostgreSQL's text cannot hold U+0000, so a NUL anywhere would fail in the database (a 500, or
 * worse a half-done write). It is refused up front, naming the field. Other control characters
 * are stored as sent. A lone surrogate (half of a UTF-16 pair, which JSON can carry) becomes
 * U+FFFD, as a text column would store it: left as it is, it made the JSON of the change feed
 * and of undo unreadable to PostgreSQL.
 */
const NUL = '\u0000';

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function collect(value: unknown, pointer: string, errors: FieldError[]): unknown {
  if (typeof value === 'string') {
    if (value.includes(NUL))
      errors.push({ path: pointer || '/', message: 'must not contain the NUL character (U+0000)' });
    return value.isWellFormed() ? value : value.toWellFormed();
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) value[index] = collect(item, `${pointer}/${index}`, errors);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const [key, item] of Object.entries(record))
      record[key] = collect(item, `${pointer}/${escapePointer(key)}`, errors);
  }
  return value;
}

/**
 * Makes every string well formed (in place), and throws 400 `invalid_request` naming every
 * string that holds a NUL. `parts` are named by where
 * they came from: `{ path, query, body }` gives `/path/job_id`, `/query/q`, `/body/text`; MCP
 * arguments are checked as they are (`/text`).
 */
export function refuseUnstorableText(parts: unknown, prefix = ''): void {
  const errors: FieldError[] = [];
  collect(parts, prefix, errors);
  if (errors.length > 0) throw invalidRequest(errors);
}
