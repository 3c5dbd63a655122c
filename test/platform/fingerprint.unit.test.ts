/**
 * The fingerprint an idempotency record keeps of a write (src/platform/idempotency.ts): the
 * same tool with the same inputs, whatever the order of their keys, prints the same; anything
 * else prints differently. Records live for days, across deploys, so the canonical form (the
 * tool, a newline, then JSON with keys sorted at every depth) must not change either.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { fingerprint } from '../../src/platform/idempotency';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The same value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversed(v)]),
    );
  return value;
}

describe('fingerprint', () => {
  it('is the SHA-256 of the tool and the JSON with sorted keys, in hex', () => {
    const input = {
      text: 'Set 3 air movers',
      operation_id: 'op-1',
      job_id: '#16',
      rows: [{ value: 12.5, metric: 'drywall' }, null, true],
    };
    const canonical =
      '{"job_id":"#16","operation_id":"op-1","rows":[{"metric":"drywall","value":12.5},null,true],"text":"Set 3 air movers"}';
    expect(fingerprint('add_note', input)).toBe(sha256(`add_note\n${canonical}`));
    expect(fingerprint('add_note', input)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not change with the order of keys, at any depth', () => {
    const a = { job_id: 'job_1', body: { rooms: [{ name: 'Kitchen', drying_days: 3 }], scope_summary: 'x' } };
    const b = { body: { scope_summary: 'x', rooms: [{ drying_days: 3, name: 'Kitchen' }] }, job_id: 'job_1' };
    expect(fingerprint('create_estimate', a)).toBe(fingerprint('create_estimate', b));
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(fingerprint('t', reversed(value))).toBe(fingerprint('t', value));
      }),
    );
  });

  it('leaves out keys whose value is undefined, as JSON does, but not nulls', () => {
    expect(fingerprint('t', { a: 1, b: undefined })).toBe(fingerprint('t', { a: 1 }));
    expect(fingerprint('t', { a: 1, b: null })).not.toBe(fingerprint('t', { a: 1 }));
  });

  it.each([
    ['another tool', 'correct_note', { text: 'a' }],
    ['another value', 'add_note', { text: 'b' }],
    ['a number for a string', 'add_note', { text: 1 }],
    ['another key', 'add_note', { note: 'a' }],
    ['an extra key', 'add_note', { text: 'a', job_id: 'job_1' }],
    ['a list', 'add_note', { text: ['a'] }],
    ['no input', 'add_note', {}],
  ])('differs for %s', (_label, tool, input) => {
    expect(fingerprint(tool, input)).not.toBe(fingerprint('add_note', { text: 'a' }));
  });

  it('keeps the order of lists: the same rows in another order are another request', () => {
    expect(fingerprint('t', { rows: [1, 2] })).not.toBe(fingerprint('t', { rows: [2, 1] }));
  });

  it('cannot be made to collide by moving text between the tool and the input', () => {
    expect(fingerprint('a', 'b\n"c"')).not.toBe(fingerprint('a\n"b', 'c'));
    expect(fingerprint('t', { 'a":1,"b': 2 })).not.toBe(fingerprint('t', { a: 1, b: 2 }));
  });
});
