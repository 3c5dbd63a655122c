/**
 * Multipart uploads generated from the spec: the parts an upload operation's schema names (its
 * `meta` from the meta schema, its file parts sent as files, with a filename, as their encoding's
 * Content-Disposition says), and faulty ones with one part the spec does not allow.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import spec from '../../../src/generated/openapi.json';
import { dereference, type FuzzOperation, type Schema } from './operations';
import { valueArb, type Hints } from './values';

export interface UploadPart {
  name: string;
  filename?: string;
  type?: string;
  body: string;
}

export interface UploadRequest {
  parts: UploadPart[];
  /** The part the spec does not allow (null for an upload it allows). */
  fault: { part: string; what: string } | null;
}

export interface UploadShape {
  filePart: string;
  maxFiles: number;
  metaSchema: Schema;
}

/** An upload operation's parts as its multipart schema states them; null for other operations. */
export function uploadShapeOf(op: FuzzOperation): UploadShape | null {
  const operation = (spec.paths as unknown as Record<string, Record<string, Schema>>)[op.path][
    op.method.toLowerCase()
  ];
  const requestBody = dereference(operation.requestBody, spec) as
    | { content: Record<string, { schema: Schema }> }
    | undefined;
  const schema = requestBody?.content['multipart/form-data']?.schema;
  if (!schema) return null;
  const properties = schema.properties as Record<string, Schema>;
  const filePart = Object.keys(properties).find((name) => name !== 'meta')!;
  const list = (properties[filePart].anyOf as Schema[]).find((branch) => branch.type === 'array')!;
  return { filePart, maxFiles: list.maxItems as number, metaSchema: properties.meta };
}

const FILE_NAMES = ['kitchen 1.jpg', 'a.png', 'Drying report.pdf', 'clip.mp4', 'Ñandú.heic', 'x'];
const DECLARED_TYPES = ['image/jpeg', 'application/octet-stream', 'text/plain', 'video/mp4'];

function filePartArb(name: string): fc.Arbitrary<UploadPart> {
  return fc.record({
    name: fc.constant(name),
    filename: fc.constantFrom(...FILE_NAMES),
    type: fc.constantFrom(...DECLARED_TYPES),
    body: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 200 }),
  });
}

/** Uploads the spec allows: one meta, one to three file parts with filenames (their content is random: 415). */
export function validUploadArb(shape: UploadShape, hints: Hints): fc.Arbitrary<UploadRequest> {
  const meta = valueArb(shape.metaSchema, hints).map(
    (value): UploadPart => ({ name: 'meta', body: JSON.stringify(value) }),
  );
  const files = fc.array(filePartArb(shape.filePart), {
    minLength: 1,
    maxLength: Math.min(3, shape.maxFiles),
  });
  return fc
    .tuple(meta, files)
    .map(([metaPart, fileParts]) => ({ parts: [metaPart, ...fileParts], fault: null }));
}

/** An upload the spec allows plus one part it does not: another name, a file part without a filename, a second meta. */
export function faultyUploadArb(shape: UploadShape, hints: Hints): fc.Arbitrary<UploadRequest> {
  const extra = fc.oneof(
    fc
      .constantFrom('caption', 'file', 'photos', `${shape.filePart}s`, 'Meta')
      .map((part) => ({ part: { name: part, body: 'x' }, fault: { part, what: `a part named ${part}` } })),
    fc.constantFrom('image/png', 'text/plain').map((type) => ({
      part: { name: shape.filePart, type, body: 'not a file' },
      fault: { part: shape.filePart, what: `a ${shape.filePart} part without a filename (${type})` },
    })),
    fc.constant({ part: { name: 'meta', body: '{}' }, fault: { part: 'meta', what: 'a second meta' } }),
  );
  return fc.tuple(validUploadArb(shape, hints), extra).map(([valid, { part, fault }]) => ({
    parts: [...valid.parts, part],
    fault,
  }));
}

/** The body and its content type, written by hand so that a part can lack a filename or carry any name. */
export function multipartOf(parts: UploadPart[]): { contentType: string; body: string } {
  const boundary = `fuzz${randomUUID()}`;
  const body = parts
    .map(
      (part) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"` +
        `${part.filename === undefined ? '' : `; filename="${part.filename}"`}\r\n` +
        `${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n${part.body}\r\n`,
    )
    .join('');
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: `${body}--${boundary}--\r\n` };
}
