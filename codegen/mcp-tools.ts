/**
 * Builds the source of src/generated/mcp-tools.ts: what MCP clients see of each tool, compacted
 * from the spec so that an assistant can afford the whole list.
 *   - description: the operation's `x-mcp-description` (when to use it, what it returns);
 *   - input schema: the parameters and body as one object, without examples, with whitespace
 *     collapsed and no `type` arrays (written as `anyOf`, which every client reads); a schema
 *     marked `x-mcp-accepts-number` (a job reference) also takes a JSON number;
 *   - output schema: the top level of the answer (field names and types); nested objects and
 *     arrays are typed, not spelled out: their full shape is in the OpenAPI document.
 * Tools come in a fixed order: by toolset (the order of the spec's tags), then by name.
 */
import type { OperationEntry } from './operation-table';

type Json = Record<string, unknown>;

/** Tags that are not toolsets: their operations are not offered over MCP. */
const NOT_TOOLSETS = new Set(['Administration']);
/** Always listed, whatever toolsets a client asks for: the guide and who the key is. */
export const ALWAYS_ON = 'context';

export function toolsetOf(tag: string): string {
  return tag.toLowerCase().replace(/\s+/g, '-');
}

export function buildMcpTools(entries: OperationEntry[], tags: { name: string; description?: string }[]): string {
  const toolsets = tags.filter((tag) => !NOT_TOOLSETS.has(tag.name)).map((tag) => ({ name: toolsetOf(tag.name), tag: tag.name, description: tag.description ?? '' }));
  const order = new Map(toolsets.map((set, index) => [set.name, index]));
  const tools = entries
    .filter((entry) => entry.spec.mcp)
    .map((entry) => toolOf(entry, order))
    .sort((a, b) => order.get(a.toolset)! - order.get(b.toolset)! || a.name.localeCompare(b.name));
  if (!toolsets.some((set) => set.name === ALWAYS_ON)) throw new Error(`the spec has no ${ALWAYS_ON} tag`);
  return `
export interface McpToolDefinition {
  name: string;
  toolset: string;
  scope: 'read' | 'write';
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[]; additionalProperties: false; $defs?: Record<string, object> };
  outputSchema: { type: 'object'; properties: Record<string, object> } | null;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** Arguments that may also be sent as a JSON number (a job's number): turned into text before validation. */
  numberArguments: string[];
}

/** The toolsets (one per tag of the spec) in their documented order; \`${ALWAYS_ON}\` is always listed. */
export const toolsets: { name: string; tag: string; description: string }[] = ${JSON.stringify(toolsets, null, 2)};

export const ALWAYS_ON_TOOLSET = ${JSON.stringify(ALWAYS_ON)};

/** Every MCP tool, in the order tools/list shows them. */
export const mcpTools: McpToolDefinition[] = ${JSON.stringify(tools, null, 2)};
`;
}

function toolOf(entry: OperationEntry, order: Map<string, number>) {
  const { spec, raw } = entry;
  const name = String(spec.name);
  const toolset = toolsetOf(String(spec.tag));
  if (!order.has(toolset)) throw new Error(`${name}: tag ${String(spec.tag)} is not a toolset of the spec`);
  const description = raw['x-mcp-description'];
  if (typeof description !== 'string') throw new Error(`${name}: x-mcp-description is missing`);
  const input = spec.inputSchema as { properties: Record<string, Json>; required: string[] };
  const properties: Record<string, Json> = {};
  const numberArguments: string[] = [];
  for (const [field, schema] of Object.entries(input.properties)) {
    properties[field] = compactInput(schema);
    if (schema['x-mcp-accepts-number'] === true) numberArguments.push(field);
  }
  const annotations = spec.annotations as Json;
  // The title is the tool's own; the annotations carry only the hints.
  const { title: _title, ...hints } = annotations;
  return {
    name,
    toolset,
    scope: spec.scope,
    title: String(annotations.title ?? spec.summary),
    description: oneLine(description),
    inputSchema: withoutRepeatedDescriptions(withSharedParts({ type: 'object', properties, required: input.required, additionalProperties: false })),
    outputSchema: topLevelOf(spec.outputSchema as Json | null),
    annotations: hints,
    numberArguments,
  };
}

/** Examples, and the length limits that guard the database rather than carry meaning (a call past one gets a 400 naming the field). */
const DROPPED = new Set(['example', 'examples', 'title', 'readOnly', 'writeOnly', '$comment', 'minLength', 'maxLength', 'maxItems', 'exclusiveMinimum']);
/** A number's bounds are shown when they say what the values are (a category 1–3, a percentage); wider ones only guard the database. */
const WIDEST_SHOWN_RANGE = 100;
/** A pattern that only refuses a blank value says nothing an assistant needs. */
const NOT_BLANK = '\\S';
/** Longer patterns say less to an assistant than the description does; short ones show an id's prefix. */
const LONGEST_PATTERN = 24;

/**
 * A schema's `x-mcp-description` stands in for its description (a rule the guide states once, such
 * as what operation_id is, needs only a reminder); branches of a described field are not described again.
 */
function compactInput(schema: Json, described = false): Json {
  if (typeof schema['x-mcp-description'] === 'string') {
    const { 'x-mcp-description': short, ...rest } = schema;
    return compactInput({ ...rest, description: short }, described);
  }
  if (schema['x-mcp-accepts-number'] === true) {
    const { description, ...asText } = schema;
    return {
      ...(description ? { description: oneLine(String(description)) } : {}),
      anyOf: [compactInput({ ...asText, 'x-mcp-accepts-number': false }), { type: 'integer', minimum: 1 }],
    };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === 'pattern' && (schema.format || String(value).length > LONGEST_PATTERN || value === NOT_BLANK)) continue;
    if ((key === 'minimum' || key === 'maximum') && !shownRange(schema)) continue;
    if (key === 'description') {
      if (!described) out.description = oneLine(String(value));
    } else if (key === 'properties') out.properties = mapValues(value as Record<string, Json>, (property) => compactInput(property));
    else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) out[key] = compactInput(value as Json);
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') out[key] = (value as Json[]).map((branch) => compactInput(branch, described || 'description' in schema));
    else out[key] = value;
  }
  return withoutTypeArray(out);
}

/** A part this long (as JSON) that a tool's input repeats is written once, under `$defs`. */
const SHARED_FROM = 300;

/**
 * Writes each large part that appears more than once in a tool's input (add_drying_readings' row
 * of readings, in the body and in each of its rows) once, in `$defs`, named by the field it sits
 * under, and refers to it: an assistant reads it once.
 */
function withSharedParts(schema: Json): Json {
  const seen = new Map<string, { name: string; count: number }>();
  const visit = (node: unknown, name: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => visit(item, name));
    if (node === null || typeof node !== 'object') return;
    const text = JSON.stringify(node);
    if (text.length >= SHARED_FROM && name !== '') {
      const entry = seen.get(text) ?? { name, count: 0 };
      seen.set(text, { ...entry, count: entry.count + 1 });
    }
    for (const [key, value] of Object.entries(node)) visit(value, key === 'properties' || key === 'items' ? name : key);
  };
  for (const [field, property] of Object.entries(schema.properties as Json)) visit(property, field);
  // The largest repeated parts first; a part inside one already shared goes with it.
  const shared = [...seen].filter(([, entry]) => entry.count > 1).sort(([a], [b]) => b.length - a.length);
  const defs: Json = {};
  const refs = new Map<string, Json>();
  for (const [text, { name }] of shared) {
    if ([...refs.keys()].some((outer) => outer.includes(text))) continue;
    const key = name in defs ? `${name}_${Object.keys(defs).length + 1}` : name;
    defs[key] = JSON.parse(text);
    refs.set(text, { $ref: `#/$defs/${key}` });
  }
  if (refs.size === 0) return schema;
  const replace = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(replace);
    if (node === null || typeof node !== 'object') return node;
    const ref = refs.get(JSON.stringify(node));
    return ref ?? Object.fromEntries(Object.entries(node).map(([key, value]) => [key, replace(value)]));
  };
  return { ...(replace(schema) as Json), $defs: defs };
}

/**
 * Words said once in a tool's input are not said again for a later field (`day` of the body and
 * of each row; `width` after `length`): the assistant has read them.
 */
function withoutRepeatedDescriptions(schema: Json): Json {
  const said = new Set<string>();
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'properties') {
        out[key] = visit(value);
        continue;
      }
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Json>).map(([field, property]) => {
          const seen = String(property.description);
          if (typeof property.description !== 'string' || !said.has(seen)) {
            said.add(seen);
            return [field, visit(property)];
          }
          const { description: _repeated, ...rest } = property;
          return [field, visit(rest)];
        }),
      );
    }
    return out;
  };
  return visit(schema) as Json;
}

function shownRange(schema: Json): boolean {
  const [low, high] = [schema.minimum, schema.maximum];
  return typeof low === 'number' && typeof high === 'number' && high - low <= WIDEST_SHOWN_RANGE;
}

/** `type: [string, 'null']` → `anyOf` of one branch per type, each with the keywords of its own type. */
function withoutTypeArray(schema: Json): Json {
  if (!Array.isArray(schema.type)) return schema;
  const { type, description, default: fallback, enum: values, ...keywords } = schema;
  const branches = (type as string[]).map((one) => (one === 'null' ? { type: 'null' } : { type: one, ...keywordsFor(one, keywords), ...(values ? { enum: values } : {}) }));
  return { ...(description ? { description } : {}), ...(fallback !== undefined ? { default: fallback } : {}), anyOf: branches };
}

const KEYWORDS_OF: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties'],
};

function keywordsFor(type: string, keywords: Json): Json {
  return Object.fromEntries(Object.entries(keywords).filter(([key]) => (KEYWORDS_OF[type] ?? []).includes(key)));
}

/** The answer's top level: each field with its type (null allowed where the spec allows it). */
/** The answer's top-level fields and their types; an `allOf` (a schema with a few fields more) lists them all. */
function topLevelOf(schema: Json | null): Json | null {
  const parts = schema ? [schema, ...((schema.allOf ?? []) as Json[])] : [];
  if (!parts.some((part) => part.type === 'object')) return null;
  const properties = Object.assign({}, ...parts.map((part) => (part.properties ?? {}) as Record<string, Json>)) as Record<string, Json>;
  return { type: 'object', properties: mapValues(properties, typeOnly) };
}

function typeOnly(schema: Json): Json {
  const types = new Set<string>();
  const collect = (s: Json): void => {
    if (Array.isArray(s.type)) for (const one of s.type) types.add(String(one));
    else if (typeof s.type === 'string') types.add(s.type);
    for (const key of ['anyOf', 'oneOf']) for (const branch of (s[key] ?? []) as Json[]) collect(branch);
  };
  collect(schema);
  const list = [...types];
  if (list.length === 0) return {};
  return list.length === 1 ? { type: list[0] } : { anyOf: list.map((one) => ({ type: one })) };
}

function mapValues(record: Record<string, Json>, fn: (value: Json) => Json): Record<string, Json> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
