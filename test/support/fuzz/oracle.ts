/**
 * What the spec says about a request and its answer, judged with Ajv on the spec's own schemas:
 * whether the request is one the spec allows, and every way an answer departs from what the
 * operation documents (status, media type, body schema, problem details).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { FuzzOperation, Schema } from './operations';
import type { FuzzRequest } from './requests';

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
// Query and path values arrive as strings: coerce them as the server's validator does.
const paramAjv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: 'array' });
addFormats(paramAjv);

const compiled = new WeakMap<object, ValidateFunction>();
function validatorOf(schema: Schema, engine: Ajv2020 = ajv): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = engine.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

const paramSchemas = new Map<string, Schema>();
function paramSchemaOf(op: FuzzOperation): Schema {
  let schema = paramSchemas.get(op.name);
  if (!schema) {
    const group = (params: FuzzOperation['pathParams'], closed: boolean): Schema => ({
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required).map((p) => p.name),
      additionalProperties: !closed,
    });
    schema = {
      type: 'object',
      properties: { path: group(op.pathParams, true), query: group(op.queryParams, true) },
    };
    paramSchemas.set(op.name, schema);
  }
  return schema;
}

const JSON_MEDIA = /^application\/json(\s*;\s*charset=utf-8)?$/i;

/** Whether the spec allows this request (keys aside). */
export function requestAllowed(op: FuzzOperation, req: FuzzRequest): boolean {
  const params = structuredClone({ path: req.path, query: req.query });
  for (const [name, raw] of Object.entries(req.rawPath)) {
    try {
      params.path[name] = decodeURIComponent(raw);
    } catch {
      return false;
    }
  }
  if (!validatorOf(paramSchemaOf(op), paramAjv)(params)) return false;
  if (!op.body) return req.body === undefined && req.rawBody === undefined;
  if (req.contentType && !JSON_MEDIA.test(req.contentType)) return false;
  let body: unknown = req.body;
  if (req.rawBody !== undefined) {
    try {
      body = JSON.parse(req.rawBody);
    } catch {
      return false;
    }
  }
  if (body === undefined) return !op.body.required;
  if (Buffer.byteLength(JSON.stringify(body) ?? '') > 1024 * 1024) return false;
  return validatorOf(op.body.schema)(body);
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const FIELD_PATH = /^\/(body|query|path)(\/|$)/;

/** Every way the answer departs from the operation's documented responses (empty: it matches). */
export function answerProblems(op: FuzzOperation, answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status === 0) return [answer.text];
  if (answer.status >= 500) problems.push(`${answer.status} from the server`);
  const status = String(answer.status);
  const documented = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
  if (!documented) {
    problems.push(`status ${status} is not documented for ${op.name}`);
    return problems;
  }
  const media = answer.contentType.split(';')[0].trim().toLowerCase();
  const mediaTypes = Object.keys(documented);
  if (mediaTypes.length === 0) {
    if (answer.text !== '') problems.push(`status ${status} documents no body but one came`);
    return problems;
  }
  const schema = documented[media];
  if (!(media in documented)) {
    problems.push(
      `media type ${media || '(none)'} is not documented for ${status} (${mediaTypes.join(', ')})`,
    );
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    problems.push(`the ${status} body is not JSON`);
    return problems;
  }
  if (schema) {
    const validate = validatorOf(schema);
    if (!validate(body))
      problems.push(`the ${status} body does not match the spec: ${ajv.errorsText(validate.errors)}`);
  }
  if (media === 'application/problem+json') {
    const problem = body as { status?: number; code?: string; errors?: { path: string }[] };
    if (problem.status !== answer.status)
      problems.push(`problem.status ${problem.status} differs from the HTTP status ${answer.status}`);
    if (answer.status === 400) {
      if (problem.code !== 'invalid_request') problems.push(`a 400 with code ${problem.code}`);
      if (!problem.errors?.length) problems.push('a 400 without errors[]');
      for (const error of problem.errors ?? []) {
        if (!FIELD_PATH.test(error.path))
          problems.push(`errors[].path ${JSON.stringify(error.path)} names no field of the request`);
      }
    }
  }
  return problems;
}
