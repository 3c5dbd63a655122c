/**
 * What a signer sends with Sign, checked before anything is written: the consent ticked, a typed
 * name, their fields' values, a signature (a stroke list within its box, or a PNG by its magic
 * bytes, at most 1 MB decoded) and the hash of the document the page showed. Each refusal has
 * its own code, so that the page can say what to fix.
 */
import sharp from 'sharp';
import { ApiError, type FieldError } from '../../platform/errors';
import type { Signature } from './form-records';
import type { TemplateField } from './template-text';

export interface SignInput {
  typedName: string;
  values: Record<string, string | boolean>;
  signature: Signature;
  documentSha256: string;
}

/** A signature picture or stroke list over this many bytes (decoded) is refused. */
export const MAX_SIGNATURE_BYTES = 1024 * 1024;
const MAX_STROKES = 500;
const MAX_POINTS = 20_000;
/** A pad's side in CSS pixels: larger than any screen, small enough to refuse nonsense. */
const MAX_PAD_SIDE = 10_000;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_TEXT = 1000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalidSignature = (detail: string) => new ApiError(422, 'invalid_signature', detail);

/** The request's body as a signing, or the refusal that says what is wrong with it. */
export async function checkSignInput(body: unknown, fields: TemplateField[]): Promise<SignInput> {
  const input = isObject(body) ? body : {};
  if (input.consent !== true)
    throw new ApiError(
      422,
      'consent_required',
      'Tick the box agreeing to sign electronically (consent: true) before signing; nothing was signed.',
    );
  const typedName = typeof input.typed_name === 'string' ? input.typed_name.trim() : '';
  if (typedName.length < 1 || typedName.length > 200 || typedName.includes('\u0000'))
    throw new ApiError(422, 'fields_invalid', 'Type your full name (1 to 200 characters).', {
      errors: [{ path: '/body/typed_name', message: 'must be your name, 1 to 200 characters' }],
    });
  const values = checkValues(input.fields, fields);
  const signature = await checkSignature(input.signature);
  if (typeof input.document_sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(input.document_sha256))
    throw new ApiError(422, 'fields_invalid', 'document_sha256 must be the hash the page showed.', {
      errors: [{ path: '/body/document_sha256', message: 'must be 64 lowercase hex characters' }],
    });
  return { typedName, values, signature, documentSha256: input.document_sha256 };
}

/** This signer's values: every key one of their fields, of its type, and the required ones given. */
function checkValues(given: unknown, fields: TemplateField[]): Record<string, string | boolean> {
  const values = given === undefined ? {} : given;
  const errors: FieldError[] = [];
  if (!isObject(values)) {
    errors.push({ path: '/body/fields', message: 'must be an object of your fields by key' });
  } else {
    for (const key of Object.keys(values))
      if (!fields.some((field) => field.key === key))
        errors.push({ path: `/body/fields/${key}`, message: 'is not one of your fields' });
    for (const field of fields) {
      const problem = valueProblem(field, values[field.key]);
      if (problem) errors.push({ path: `/body/fields/${field.key}`, message: `${field.label}: ${problem}` });
    }
  }
  if (errors.length > 0)
    throw new ApiError(
      422,
      'fields_invalid',
      `${errors.length} field${errors.length === 1 ? '' : 's'} to fix before signing.`,
      { errors },
    );
  return values as Record<string, string | boolean>;
}

function valueProblem(field: TemplateField, value: unknown): string | null {
  const missing = value === undefined || value === '' || (field.type === 'checkbox' && value === false);
  if (missing) return field.required ? 'is required' : null;
  if (field.type === 'checkbox') return typeof value === 'boolean' ? null : 'must be true or false';
  if (typeof value !== 'string') return 'must be text';
  if (value.includes('\u0000')) return 'must not hold NUL characters';
  if (field.type === 'date')
    return DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))
      ? null
      : 'must be a date (YYYY-MM-DD)';
  if (field.type === 'initials') return value.trim().length <= 10 ? null : 'must be at most 10 characters';
  return value.length <= MAX_TEXT ? null : `must be at most ${MAX_TEXT} characters`;
}

async function checkSignature(given: unknown): Promise<Signature> {
  if (!isObject(given))
    throw invalidSignature(
      'Draw your signature: signature must be a stroke list ({ strokes, width, height }) or a PNG ({ png }).',
    );
  if (typeof given.png === 'string') return { png: await checkPng(given.png) };
  return checkStrokes(given);
}

/** A signature's picture has at most this many pixels: a small PNG may decode to a huge one. */
export const MAX_SIGNATURE_PIXELS = 4096 * 4096;

async function checkPng(given: string): Promise<string> {
  const base64 = given.replace(/^data:image\/png;base64,/, '');
  // Base64 is 4 characters for 3 bytes: the size is known before anything is decoded.
  if (Math.floor((base64.length * 3) / 4) > MAX_SIGNATURE_BYTES + 2) throw tooLarge();
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > MAX_SIGNATURE_BYTES) throw tooLarge();
  if (!bytes.subarray(0, 8).equals(PNG_MAGIC))
    throw invalidSignature(
      'The signature picture is not a PNG: send the pad as a PNG (base64) or as strokes.',
    );
  const picture = await sharp(bytes, { failOn: 'truncated', limitInputPixels: MAX_SIGNATURE_PIXELS })
    .stats()
    .then(
      (stats) => stats,
      () => null,
    );
  if (!picture)
    throw invalidSignature(
      `The signature picture is a damaged PNG, or larger than ${MAX_SIGNATURE_PIXELS} pixels.`,
    );
  // A picture with one colour everywhere, or nothing but transparent pixels, holds no signature.
  const alpha = picture.channels.length % 2 === 0 ? picture.channels.at(-1) : undefined;
  if (alpha?.max === 0 || picture.channels.every((channel) => channel.min === channel.max))
    throw invalidSignature('The signature picture is empty: draw your signature.');
  return bytes.toString('base64');
}

function tooLarge(): ApiError {
  return new ApiError(
    413,
    'signature_too_large',
    `The signature is over ${MAX_SIGNATURE_BYTES / 1024 / 1024} MB; draw it on the page's pad, which sends a small one.`,
  );
}

function checkStrokes(given: Record<string, unknown>): Signature {
  const { strokes, width, height } = given;
  const side = (n: unknown): n is number =>
    typeof n === 'number' && Number.isFinite(n) && n > 0 && n <= MAX_PAD_SIDE;
  if (!Array.isArray(strokes) || !side(width) || !side(height))
    throw invalidSignature(
      'The signature is not a stroke list: send { strokes: [[[x, y], …], …], width, height }.',
    );
  if (JSON.stringify(strokes).length > MAX_SIGNATURE_BYTES) throw tooLarge();
  const points = strokes.reduce(
    (n: number, stroke: unknown) => n + (Array.isArray(stroke) ? stroke.length : 0),
    0,
  );
  if (strokes.length === 0 || points === 0)
    throw invalidSignature('The signature is empty: draw your signature.');
  if (strokes.length > MAX_STROKES || points > MAX_POINTS)
    throw invalidSignature(`A signature has at most ${MAX_STROKES} strokes and ${MAX_POINTS} points.`);
  const inBox = (point: unknown): point is [number, number] =>
    Array.isArray(point) &&
    point.length === 2 &&
    point.every((n) => typeof n === 'number' && Number.isFinite(n)) &&
    point[0] >= 0 &&
    point[0] <= width &&
    point[1] >= 0 &&
    point[1] <= height;
  for (const stroke of strokes) {
    if (!Array.isArray(stroke) || stroke.length === 0 || !stroke.every(inBox))
      throw invalidSignature(
        `Each stroke is a list of [x, y] points within the pad (0 to ${width} by 0 to ${height}).`,
      );
  }
  return { strokes: strokes as number[][][], width, height };
}
