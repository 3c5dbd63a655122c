/**
 * The one check of a request against the spec, for every transport: an HTTP request's path, query
 * and JSON body; an MCP call's arguments (split into the same three parts); an upload's `meta`
 * part and a page's form. Schemas are referenced in the bundled spec, never copied, and compiled
 * on first use. One error shape: `invalid_request` with a JSON pointer and a message per field.
 */
import Ajv2020, { type ErrorObject, type Options, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import spec from '../generated/openapi.json';
import { operations, type OperationName } from '../generated/operations';
import { ApiError, invalidRequest, type FieldError } from './errors';
import { refuseUnstorableText } from './inputs';

export type Part = 'path' | 'query' | 'body';
export type RequestParts = Record<Part, Record<string, unknown>>;

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

function engine(options: Options): Ajv2020 {
  // verbose: an error carries its schema, so that a pattern standing for a format is named by it.
  const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true, ...options });
  addFormats(ajv);
  // An email's one rule is the pattern of the spec's `Email` schema; `format: email` only names it.
  ajv.addFormat('email', true);
  ajv.addSchema(spec, 'spec');
  return ajv;
}
/** Over HTTP, parameters are text: "5" is read as 5 and one value as a list of one. Nothing else is converted. */
const fromText = engine({ coerceTypes: 'array' });
const asSent = engine({});

/** `spec#/paths/~1jobs~1{job_id}/post`: a JSON pointer into the spec, usable as a `$ref`. */
function refTo(...segments: string[]): string {
  return `spec#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
}

/** `#/components/parameters/Limit` → that object of the spec. */
function resolved(node: Json): { value: Json; ref: string | null } {
  const local = typeof node.$ref === 'string' ? node.$ref : null;
  if (!local) return { value: node, ref: null };
  const value = local
    .slice(2)
    .split('/')
    .reduce<Json>(
      (at, key) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json,
      spec as unknown as Json,
    );
  return { value, ref: `spec${local}` };
}

interface OperationChecks {
  /** The parameters' object schema: named properties, the required ones, nothing else, and the operation's `x-query-schema`. */
  params: Record<'path' | 'query', Json>;
  body: Json | null;
  bodyRequired: boolean;
}

const described = new Map<OperationName, OperationChecks>();

function checksOf(name: OperationName): OperationChecks {
  let checks = described.get(name);
  if (checks) return checks;
  const op = operations[name];
  const method = op.method.toLowerCase();
  const operation = (spec.paths as unknown as Record<string, Record<string, Json>>)[op.path][method];
  const params: OperationChecks['params'] = { path: objectOf([], []), query: objectOf([], []) };
  const declared = ((operation.parameters ?? []) as Json[]).map((node, i) => {
    const { value, ref } = resolved(node);
    return {
      parameter: value as unknown as Parameter,
      schemaRef: `${ref ?? refTo('paths', op.path, method, 'parameters', String(i))}/schema`,
    };
  });
  for (const part of ['path', 'query'] as const) {
    const mine = declared.filter((d) => d.parameter.in === part);
    params[part] = objectOf(
      mine.map((d) => [d.parameter.name, { $ref: d.schemaRef }]),
      mine.filter((d) => d.parameter.required).map((d) => d.parameter.name),
    );
  }
  if (operation['x-query-schema'])
    params.query = { allOf: [params.query, { $ref: `${refTo('paths', op.path, method)}/x-query-schema` }] };
  const requestBody = operation.requestBody ? resolved(operation.requestBody as Json) : null;
  const jsonBody =
    requestBody &&
    ((requestBody.value.content as Json | undefined)?.['application/json'] as Json | undefined);
  checks = {
    params,
    body: jsonBody
      ? {
          $ref: `${requestBody.ref ?? refTo('paths', op.path, method, 'requestBody')}/content/application~1json/schema`,
        }
      : null,
    bodyRequired: requestBody?.value.required === true,
  };
  described.set(name, checks);
  return checks;
}

function objectOf(properties: [string, Json][], required: string[]): Json {
  return {
    type: 'object',
    properties: Object.fromEntries(properties),
    required,
    additionalProperties: false,
  };
}

const compiled = new Map<string, ValidateFunction>();
function compiledFor(key: string, ajv: Ajv2020, schema: Json): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * A tool's own rules over the parts of a body that failed the spec (`errors`, pointers under
 * `/body`): what they find is named in the same 400, so that a caller fixes everything at once.
 */
export type ErrorsBeside = (body: unknown, errors: FieldError[]) => FieldError[];

/** The spec's errors and the tool's, in the order of their pointers (rows by number). */
function withErrorsBeside(
  errors: FieldError[],
  body: unknown,
  beside: ErrorsBeside | undefined,
): FieldError[] {
  if (!beside) return errors;
  return [...errors, ...beside(body, errors)].sort((a, b) =>
    a.path.localeCompare(b.path, 'en', { numeric: true }),
  );
}

/**
 * Checks an HTTP request's parts and converts the parameters to their types in place. `body` is
 * undefined when none was sent.
 */
export function checkHttpRequest(
  name: OperationName,
  parts: { path: Json; query: Json; body: unknown },
  beside?: ErrorsBeside,
): void {
  const checks = checksOf(name);
  const errors: FieldError[] = [];
  for (const part of ['path', 'query'] as const) {
    const validate = compiledFor(`${name} ${part} text`, fromText, checks.params[part]);
    if (!validate(parts[part])) errors.push(...fieldErrors(`/${part}`, validate.errors));
  }
  if (checks.body && (parts.body !== undefined || checks.bodyRequired)) {
    const validate = compiledFor(`${name} body`, asSent, checks.body);
    if (!validate(parts.body ?? {}))
      errors.push(...withErrorsBeside(fieldErrors('/body', validate.errors), parts.body, beside));
  }
  if (errors.length > 0) throw invalidRequest(errors);
  refuseUnstorableText(parts);
}

/**
 * Checks an MCP call's arguments (one object) and splits them into the parts of the HTTP request.
 * Errors name the argument (`/limit`), as the tool's input schema does.
 */
export function checkToolArguments(name: OperationName, args: unknown, beside?: ErrorsBeside): RequestParts {
  refuseUnstorableText(args);
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw invalidRequest([{ path: '/', message: 'must be object' }]);
  const op = operations[name];
  const sent = args as Json;
  const parts: RequestParts = { path: {}, query: {}, body: {} };
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(sent)) {
    const part = op.pathParams.includes(key)
      ? 'path'
      : op.queryParams.includes(key)
        ? 'query'
        : op.bodyParams.includes(key)
          ? 'body'
          : null;
    if (part) parts[part][key] = value;
    else errors.push({ path: pointer('', key), message: 'must NOT have additional properties' });
  }
  const checks = checksOf(name);
  for (const part of ['path', 'query'] as const) {
    const validate = compiledFor(`${name} ${part} sent`, asSent, checks.params[part]);
    if (!validate(parts[part])) errors.push(...fieldErrors('', validate.errors));
  }
  if (checks.body) {
    const validate = compiledFor(`${name} body`, asSent, checks.body);
    if (!validate(parts.body)) {
      // The tool's rules speak of `/body/…`; an argument is named without it.
      const asBody = fieldErrors('/body', validate.errors);
      errors.push(
        ...withErrorsBeside(asBody, parts.body, beside).map((e) => ({
          ...e,
          path: e.path === '/body' ? '/' : e.path.slice('/body'.length),
        })),
      );
    }
  }
  if (errors.length > 0) throw invalidRequest(errors);
  return parts;
}

/** Checks a value against a named schema of the spec (`components/schemas/<schema>`); errors are placed under `at`. */
export function checkValue(schema: string, value: unknown, at: string): void {
  const errors = schemaErrors(schema, value, at);
  if (errors.length > 0) throw invalidRequest(errors);
}

/** What is wrong with a value by a named schema of the spec, placed under `at`; none when it fits. */
export function schemaErrors(schema: string, value: unknown, at: string): FieldError[] {
  const validate = compiledFor(`schema ${schema}`, asSent, { $ref: refTo('components', 'schemas', schema) });
  return validate(value) ? [] : fieldErrors(at, validate.errors);
}

/**
 * In tests, every answer of a handler is checked against the operation's documented response:
 * a departure is a 500 that names it, so that no test passes on an answer the spec does not allow.
 */
export function checkAnswer(name: OperationName, status: number, body: unknown): void {
  const op = operations[name];
  const method = op.method.toLowerCase();
  const operation = (spec.paths as unknown as Record<string, Record<string, Json>>)[op.path][method];
  const response = (operation.responses as Record<string, Json>)[String(status)];
  if (!response)
    throw new ApiError(500, 'internal_error', `${name} answered ${status}, which its responses do not list.`);
  const content = resolved(response).value.content as Json | undefined;
  if (!content?.['application/json']) {
    if (body !== undefined)
      throw new ApiError(
        500,
        'internal_error',
        `${name} answered ${status} with a body its response does not have.`,
      );
    return;
  }
  const validate = compiledFor(`${name} answer ${status}`, asSent, {
    $ref: `${refTo('paths', op.path, method, 'responses', String(status))}/content/application~1json/schema`,
  });
  if (!validate(body)) {
    const where = fieldErrors('/response', validate.errors)
      .map((e) => `${e.path} ${e.message}`)
      .join('; ');
    throw new ApiError(
      500,
      'internal_error',
      `${name}'s answer does not match its response schema: ${where}`,
    );
  }
}

function pointer(prefix: string, key: string): string {
  return `${prefix}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Ajv's errors as field errors: a missing or extra property is named in the path, an enum lists the allowed values. */
export function fieldErrors(prefix: string, errors: ErrorObject[] | null | undefined): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const e of withoutNullBranches(errors ?? [])) {
    // An `if`'s own error ("must match \"then\" schema") only sums up the errors of its branch.
    if (e.keyword === 'if') continue;
    let path = `${prefix}${e.instancePath}`;
    if (e.keyword === 'required' || e.keyword === 'dependentRequired')
      path = pointer(path, (e.params as { missingProperty: string }).missingProperty);
    if (e.keyword === 'additionalProperties')
      path = pointer(path, (e.params as { additionalProperty: string }).additionalProperty);
    const allowed =
      e.keyword === 'enum' ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` : '';
    // A pattern that states a format's rule (Email, CalendarDate) says more by the format's name than as a regex.
    const format = e.keyword === 'pattern' ? (e.parentSchema as Json | undefined)?.format : undefined;
    const message =
      typeof format === 'string' ? `must match format "${format}"` : `${e.message ?? 'is invalid'}${allowed}`;
    const key = `${path} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ path: path || '/', message });
  }
  return result;
}

const NULL_BRANCH = /\/(?:anyOf|oneOf)\/\d+\/type$/;
/**
 * A nullable field written as a union with `{type: 'null'}` (an Email or null): a value that is not
 * null is judged by its other branch alone, without "must be null" and the union's own summary.
 */
function withoutNullBranches(errors: ErrorObject[]): ErrorObject[] {
  const isNullBranch = (e: ErrorObject) =>
    e.keyword === 'type' && (e.params as { type: unknown }).type === 'null' && NULL_BRANCH.test(e.schemaPath);
  const unions = new Set(errors.filter(isNullBranch).map((e) => e.schemaPath.replace(/\/\d+\/type$/, '')));
  return errors.filter((e) => !isNullBranch(e) && !unions.has(e.schemaPath));
}
