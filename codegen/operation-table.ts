/**
 * Builds the source of src/generated/operations.ts: one entry per operation of the spec, with
 * everything the router, the MCP server, the guide and the scope/credit checks need. Schemas are
 * not copied into it: requests are checked against the spec itself (src/platform/validation.ts).
 * An entry described here also has the merged input schema and the output schema, from which
 * mcp-tools.ts makes what MCP clients are shown and which the tests read.
 */
type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const SCOPES = ['read', 'write', 'admin'];
const CREDITS = ['none', 'estimate', 'estimate_if_new_log'];
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  'x-mcp-description'?: string;
  schema: Json;
}

/** One operation: what the table says of it, and the operation as the spec has it (references resolved). */
export interface OperationEntry {
  spec: Json;
  raw: Json;
}

/** `resolved`: the bundled spec with its references replaced by what they point to. */
export function describeOperations(resolved: { paths: Record<string, Json> }): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [route, item] of Object.entries(resolved.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) entries.push({ spec: describeOperation(route, method, op), raw: op });
    }
  }
  return entries.sort((a, b) => String(a.spec.name).localeCompare(String(b.spec.name)));
}

export function buildOperationTable(described: OperationEntry[]): string {
  // The schemas stay in the spec: the validator and the tests read them there.
  const entries = described.map(
    ({ spec: { inputSchema: _input, outputSchema: _output, ...entry } }) => entry,
  );
  const union = (scope?: string): string =>
    entries
      .filter((e) => !scope || e.scope === scope)
      .map((e) => JSON.stringify(e.name))
      .join('\n  | ') || 'never';
  const table = entries
    .map((e) => `  ${e.name}: ${JSON.stringify(e, null, 2).replace(/\n/g, '\n  ')},`)
    .join('\n');
  return `${PREAMBLE}
export type OperationName =
  | ${union()};

export type ReadOperationName =
  | ${union('read')};

export type WriteOperationName =
  | ${union('write')};

export type AdminOperationName =
  | ${union('admin')};

export const operations: Record<OperationName, OperationSpec> = {
${table}
};
`;
}

function describeOperation(route: string, method: string, op: Json): Json {
  const name = required<string>(op, 'operationId', route);
  const scope = required<string>(op, 'x-scope', name);
  const credit = required<string>(op, 'x-credit', name);
  const mcp = required<boolean>(op, 'x-mcp', name);
  if (!SCOPES.includes(scope)) throw new Error(`${name}: x-scope must be one of ${SCOPES.join(', ')}`);
  if (!CREDITS.includes(credit)) throw new Error(`${name}: x-credit must be one of ${CREDITS.join(', ')}`);
  const annotations = mcp ? checkedAnnotations(name, required<Json>(op, 'x-mcp-annotations', name)) : null;

  const parameters = (op.parameters ?? []) as Parameter[];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const body = jsonBody(op);
  const bodySchema = (body?.schema ?? { type: 'object', properties: {} }) as Json;
  const bodyProperties = (bodySchema.properties ?? {}) as Record<string, Json>;

  const properties: Record<string, Json> = {};
  const requiredNames: string[] = [];
  for (const p of [...pathParams, ...queryParams]) {
    const short = p['x-mcp-description'];
    properties[p.name] = {
      ...p.schema,
      ...(p.description ? { description: p.description } : {}),
      ...(short !== undefined ? { 'x-mcp-description': short } : {}),
    };
    if (p.required) requiredNames.push(p.name);
  }
  for (const [field, schema] of Object.entries(bodyProperties)) {
    if (field in properties) throw new Error(`${name}: body field ${field} collides with a parameter`);
    properties[field] = schema;
  }
  if (body?.required) requiredNames.push(...((bodySchema.required ?? []) as string[]));

  const success = Object.keys((op.responses ?? {}) as Json)
    .filter((s) => /^2\d\d$/.test(s))
    .sort()[0];
  if (!success) throw new Error(`${name}: no 2xx response`);
  const successContent = ((op.responses as Record<string, Json>)[success].content ?? {}) as Record<
    string,
    Json
  >;

  return {
    name,
    method: method.toUpperCase(),
    path: route,
    expressPath: route.replace(/\{(\w+)\}/g, ':$1'),
    tag: ((op.tags ?? []) as string[])[0] ?? '',
    summary: required<string>(op, 'summary', name),
    description: String(op.description ?? '').trim(),
    scope,
    credit,
    mcp,
    annotations,
    pathParams: pathParams.map((p) => p.name),
    queryParams: queryParams.map((p) => p.name),
    bodyParams: Object.keys(bodyProperties),
    hasBody: body !== null,
    successStatus: Number(success),
    inputSchema: { type: 'object', properties, required: requiredNames, additionalProperties: false },
    outputSchema: successContent['application/json']?.schema ?? null,
  };
}

function jsonBody(op: Json): { schema: Json; required: boolean } | null {
  const requestBody = op.requestBody as Json | undefined;
  if (!requestBody) return null;
  const content = (requestBody.content ?? {}) as Record<string, Json>;
  const media = content['application/json'];
  if (!media) return null;
  return { schema: media.schema as Json, required: requestBody.required === true };
}

function checkedAnnotations(name: string, annotations: Json): Json {
  for (const hint of HINTS) {
    if (typeof annotations[hint] !== 'boolean')
      throw new Error(`${name}: x-mcp-annotations.${hint} must be set`);
  }
  return annotations;
}

function required<T>(op: Json, key: string, where: string): T {
  if (op[key] === undefined) throw new Error(`${where}: ${key} is missing`);
  return op[key] as T;
}

const PREAMBLE = `
export interface McpAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface OperationSpec {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  expressPath: string;
  tag: string;
  summary: string;
  description: string;
  /** Who may call it: a read key, a write key, or the admin token. */
  scope: 'read' | 'write' | 'admin';
  /** Which calls use an estimate credit. */
  credit: 'none' | 'estimate' | 'estimate_if_new_log';
  /** Offered as an MCP tool. */
  mcp: boolean;
  annotations: McpAnnotations | null;
  pathParams: string[];
  queryParams: string[];
  bodyParams: string[];
  hasBody: boolean;
  successStatus: number;
}`;
