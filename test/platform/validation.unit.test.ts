/**
 * The one check of a request against the spec (src/platform/validation.ts), without a server:
 * what HTTP sends as text is read as the spec's types, an MCP call's arguments are split into the
 * HTTP request's parts, and every bad field is named with a JSON pointer, all at once.
 */
import { checkAnswer, checkHttpRequest, checkToolArguments, checkValue } from '../../src/platform/validation';
import { ApiError } from '../../src/platform/errors';

const OPERATION_ID = '0f3c9a8e-51d2-4c1b-9a7e-2b3c4d5e6f70';

/** The field errors a check throws, or null when it passes. */
function refusal(check: () => unknown): { status: number; code: string; errors: unknown } | null {
  try {
    check();
    return null;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, errors: error.extra.errors };
  }
}

describe('checkHttpRequest', () => {
  it('reads query text as the spec types it, in place', () => {
    const query: Record<string, unknown> = { limit: '5', q: 'Alvarez' };
    checkHttpRequest('find_jobs', { path: {}, query, body: undefined });
    expect(query).toEqual({ limit: 5, q: 'Alvarez' });
  });

  it('names every bad field at once, with a pointer under its part', () => {
    expect(
      refusal(() =>
        checkHttpRequest('add_note', {
          path: { job_id: '12' },
          query: {},
          body: { operation_id: OPERATION_ID, text: '', pinned: true },
        }),
      ),
    ).toEqual({
      status: 400,
      code: 'invalid_request',
      errors: [
        { path: '/body/pinned', message: 'must NOT have additional properties' },
        { path: '/body/text', message: 'must NOT have fewer than 1 characters' },
      ],
    });
    expect(
      refusal(() => checkHttpRequest('find_jobs', { path: {}, query: { limit: '500' }, body: undefined })),
    ).toEqual(expect.objectContaining({ errors: [expect.objectContaining({ path: '/query/limit' })] }));
  });

  it('refuses a write without its required body', () => {
    expect(
      refusal(() => checkHttpRequest('add_note', { path: { job_id: '12' }, query: {}, body: undefined })),
    ).toEqual(expect.objectContaining({ status: 400, code: 'invalid_request' }));
  });
});

describe('checkToolArguments', () => {
  it("splits an MCP call's arguments into the HTTP request's parts", () => {
    expect(
      checkToolArguments('add_note', { job_id: '#12', operation_id: OPERATION_ID, text: 'Dry' }),
    ).toEqual({
      path: { job_id: '#12' },
      query: {},
      body: { operation_id: OPERATION_ID, text: 'Dry' },
    });
  });

  it('takes no text for a number: an MCP client sends JSON types', () => {
    expect(refusal(() => checkToolArguments('find_jobs', { limit: '5' }))).toEqual(
      expect.objectContaining({ errors: [expect.objectContaining({ path: '/limit' })] }),
    );
  });

  it('names an unknown argument, and refuses arguments that are not an object', () => {
    expect(refusal(() => checkToolArguments('get_job', { job_id: '1', jobid: '1' }))).toEqual(
      expect.objectContaining({
        errors: [{ path: '/jobid', message: 'must NOT have additional properties' }],
      }),
    );
    expect(refusal(() => checkToolArguments('get_job', ['1']))).toEqual(
      expect.objectContaining({ errors: [{ path: '/', message: 'must be object' }] }),
    );
  });
});

describe('checkValue and checkAnswer', () => {
  it('checks a value against a named schema, placing errors under the given pointer', () => {
    expect(refusal(() => checkValue('NoteText', 'Dry', '/meta/text'))).toBeNull();
    expect(refusal(() => checkValue('NoteText', 'x'.repeat(20_001), '/meta/text'))).toEqual(
      expect.objectContaining({ errors: [expect.objectContaining({ path: '/meta/text' })] }),
    );
  });

  it('refuses an answer whose status the operation does not list, as a 500 that names it', () => {
    expect(refusal(() => checkAnswer('add_note', 418, {}))).toEqual({
      status: 500,
      code: 'internal_error',
      errors: undefined,
    });
  });
});
