/**
 * The OpenAPI document as the fuzzer sees it: every operation with its parameters, body and
 * responses, all `$ref`s resolved, so that requests can be generated and answers checked from
 * the document alone.
 */
import spec from '../../../src/generated/openapi.json';

export type Schema = Record<string, unknown>;

export interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

export interface MediaSchemas {
  [mediaType: string]: Schema | undefined;
}

export interface FuzzOperation {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** `read`, `write` or `admin` (x-scope). */
  scope: string;
  mcp: boolean;
  pathParams: Param[];
  queryParams: Param[];
  body: { schema: Schema; required: boolean } | null;
  /** Documented statuses, each with the schema of each media type it may carry. */
  responses: Record<string, MediaSchemas>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Replaces every local `$ref` by what it points to (the spec has no cycles); siblings stay. */
export function dereference(node: unknown, root: unknown, seen = new Map<string, unknown>()): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root, seen));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, dereference(v, root, seen)]));
  if (typeof $ref !== 'string') return own;
  if (!seen.has($ref)) {
    const target = $ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (at, key) => (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        root,
      );
    seen.set($ref, dereference(target, root, seen));
  }
  const resolved = seen.get($ref) as Record<string, unknown>;
  return Object.keys(own).length ? { ...resolved, ...own } : resolved;
}

export async function loadOperations(): Promise<FuzzOperation[]> {
  const doc = dereference(spec, spec) as { paths: Record<string, Record<string, Schema>> };
  const ops: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = (op.parameters ?? []) as {
        name: string;
        in: string;
        required?: boolean;
        schema: Schema;
      }[];
      const toParam = (p: (typeof params)[number]): Param => ({
        name: p.name,
        in: p.in as Param['in'],
        required: p.required === true,
        schema: p.schema,
      });
      const requestBody = op.requestBody as
        | { required?: boolean; content: Record<string, { schema: Schema }> }
        | undefined;
      const jsonBody = requestBody?.content['application/json'];
      const responses: Record<string, MediaSchemas> = {};
      for (const [status, response] of Object.entries(
        (op.responses ?? {}) as Record<string, { content?: Record<string, { schema?: Schema }> }>,
      )) {
        responses[status] = Object.fromEntries(
          Object.entries(response.content ?? {}).map(([media, content]) => [media, content.schema]),
        );
      }
      ops.push({
        name: op.operationId as string,
        method: method.toUpperCase() as FuzzOperation['method'],
        path,
        scope: op['x-scope'] as string,
        mcp: op['x-mcp'] === true,
        pathParams: params.filter((p) => p.in === 'path').map(toParam),
        queryParams: params.filter((p) => p.in === 'query').map(toParam),
        body: jsonBody ? { schema: jsonBody.schema, required: requestBody?.required === true } : null,
        responses,
      });
    }
  }
  return ops.sort((a, b) => a.name.localeCompare(b.name));
}
