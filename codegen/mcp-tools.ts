/**
 * Builds the source of src/generated/mcp-tools.ts: what MCP clients see of each tool, compacted
 * from the spec so that an assistant can afford the whole list (at most 400 tokens a tool):
 *   - description: the operation's `x-mcp-description` (when to use it, what it returns);
 *   - input schema: the parameters and body as one object, without examples, with whitespace
 *     collapsed and no `type` arrays (written as `anyOf`, which every client reads); a schema's
 *     `x-mcp-description` replaces its description (empty: none, where a rule of the guide or the
 *     field's name says it); a schema marked `x-mcp-accepts-number` (a job reference) also takes
 *     a JSON number; fields marked `x-mcp-omit` are not shown, and one marked `x-mcp-as-in` points
 *     to the tool that shows the same field; repeated parts are written once under `$defs`;
 *   - output schema: the answer's top-level field names, or the read tool that spells it out;
 *     their full shapes are in the OpenAPI document.
 * Tools come in a fixed order: by toolset (the order of the spec's tags), then by name.
 */
import type { OperationEntry } from './operation-table';

type Json = Record<string, unknown>;

/** MCP's hints whose absence means false (destructiveHint and openWorldHint default to true: always sent). */
const FALSE_BY_DEFAULT = ['readOnlyHint', 'idempotentHint'];

/** Tags that are not toolsets: their operations are not offered over MCP. */
const NOT_TOOLSETS = new Set(['Administration']);
/** Always listed, whatever toolsets a client asks for: the guide and who the key is. */
export const ALWAYS_ON = 'context';

export function toolsetOf(tag: string): string {
  return tag.toLowerCase().replace(/\s+/g, '-');
}

export function buildMcpTools(
  entries: OperationEntry[],
  tags: { name: string; description?: string }[],
): string {
  const toolsets = tags
    .filter((tag) => !NOT_TOOLSETS.has(tag.name))
    .map((tag) => ({ name: toolsetOf(tag.name), tag: tag.name, description: tag.description ?? '' }));
  const order = new Map(toolsets.map((set, index) => [set.name, index]));
  const offered = entries.filter((entry) => entry.spec.mcp);
  const answers = answerHomes(offered);
  const all: Arguments = new Map(offered.map((entry) => [String(entry.spec.name), argumentsOf(entry)]));
  const tools = offered
    .map((entry) => toolOf(entry, order, answers, all))
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
  outputSchema: { type: 'object'; description?: string; required?: string[]; properties?: Record<string, object> } | null;
  annotations: { readOnlyHint?: boolean; destructiveHint: boolean; idempotentHint?: boolean; openWorldHint: boolean };
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

/** Each tool's arguments as MCP shows them, before the tool refers to another's (`x-mcp-as-in`). */
type Arguments = Map<string, Record<string, Json>>;

function argumentsOf(entry: OperationEntry): Record<string, Json> {
  const input = entry.spec.inputSchema as { properties: Record<string, Json> };
  return mapValues(shownOf(input.properties), (schema) => compactInput(schema));
}

/**
 * Fields marked `x-mcp-omit` are left out of what assistants are shown: a second way to say the
 * same (add_drying_readings' single row beside its `rows`). The tool still takes them, as HTTP does.
 */
function shownOf(properties: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(properties).filter(([, schema]) => schema['x-mcp-omit'] !== true));
}

/**
 * A field marked `x-mcp-as-in: <tool>` is what that tool takes under the same name
 * (`create_estimate`'s line_items are `add_line_items`'): the assistant reads its shape there.
 * The two must stay the same, or the generator stops.
 */
function referredTo(name: string, field: string, schema: Json, tool: string, all: Arguments): Json {
  const there = all.get(tool)?.[field];
  if (!there) throw new Error(`${name}.${field}: x-mcp-as-in names ${tool}, which takes no ${field}`);
  const { description: _here, ...shape } = compactInput(schema);
  const { description: _there, ...shapeThere } = there;
  if (JSON.stringify(shape) !== JSON.stringify(shapeThere))
    throw new Error(`${name}.${field} differs from ${tool}.${field}: drop x-mcp-as-in or make them the same`);
  return { type: shape.type, description: `As in \`${tool}\`.` };
}

function toolOf(
  entry: OperationEntry,
  order: Map<string, number>,
  answers: Map<string, string>,
  all: Arguments,
) {
  const { spec, raw } = entry;
  const name = String(spec.name);
  const toolset = toolsetOf(String(spec.tag));
  if (!order.has(toolset)) throw new Error(`${name}: tag ${String(spec.tag)} is not a toolset of the spec`);
  const description = raw['x-mcp-description'];
  if (typeof description !== 'string') throw new Error(`${name}: x-mcp-description is missing`);
  const input = spec.inputSchema as { properties: Record<string, Json>; required: string[] };
  const properties = { ...all.get(name)! };
  const hidden = input.required.filter((field) => !(field in properties));
  if (hidden.length > 0) throw new Error(`${name}: required ${hidden.join(', ')} cannot be x-mcp-omit`);
  const numberArguments: string[] = [];
  for (const [field, schema] of Object.entries(input.properties)) {
    if (typeof schema['x-mcp-as-in'] === 'string')
      properties[field] = referredTo(name, field, schema, schema['x-mcp-as-in'], all);
    if (schema['x-mcp-accepts-number'] === true) numberArguments.push(field);
  }
  const annotations = spec.annotations as Json;
  // The title is the tool's own; the annotations carry only the hints.
  const { title: _title, ...hints } = annotations;
  // A hint that is false where MCP's default is false says what its absence says to every client.
  for (const hint of FALSE_BY_DEFAULT) if (hints[hint] === false) delete hints[hint];
  return {
    name,
    toolset,
    scope: spec.scope,
    title: String(annotations.title ?? spec.summary),
    description: oneLine(description),
    inputSchema: withoutRepeatedDescriptions(
      withSharedParts({ type: 'object', properties, required: input.required, additionalProperties: false }),
    ),
    outputSchema: outputOf(name, spec.outputSchema as Json | null, answers),
    annotations: hints,
    numberArguments,
  };
}

/**
 * Examples, and the limits that guard the database or restate the description rather than carry
 * meaning: a call past one gets a 400 naming the field (so do fields a nested object does not
 * have; the tool's own arguments still say `additionalProperties: false`).
 */
const DROPPED = new Set([
  'example',
  'examples',
  'title',
  'readOnly',
  'writeOnly',
  '$comment',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'exclusiveMinimum',
  'additionalProperties',
]);
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
    // An empty one: the field's name and type say it all to an assistant.
    const { 'x-mcp-description': short, description: _long, ...rest } = schema;
    return compactInput(short === '' ? rest : { ...rest, description: short }, described);
  }
  if (schema['x-mcp-accepts-number'] === true) {
    const { description, ...asText } = schema;
    return {
      ...(description ? { description: oneLine(String(description)) } : {}),
      anyOf: [compactInput({ ...asText, 'x-mcp-accepts-number': false }), { type: 'integer' }],
    };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === 'pattern' && (schema.format || String(value).length > LONGEST_PATTERN || value === NOT_BLANK))
      continue;
    if ((key === 'minimum' || key === 'maximum') && !shownRange(schema)) continue;
    if (key === 'description') {
      if (!described) out.description = oneLine(String(value));
    } else if (key === 'properties')
      out.properties = mapValues(shownOf(value as Record<string, Json>), (property) =>
        compactInput(property),
      );
    else if (key === 'items') out[key] = compactInput(value as Json);
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf')
      out[key] = (value as Json[]).map((branch) =>
        compactInput(branch, described || 'description' in schema),
      );
    else out[key] = value;
  }
  return withoutTypeArray(out);
}

/** A part this long (as JSON) that a tool's input repeats is written once, under `$defs`. */
const SHARED_FROM = 300;
/** A field that is one type or null, repeated this often, is written once too (update_job_overview's nine texts that null clears). */
const SHARED_NULLABLE_FROM = 3;

/** `{anyOf: [{type: T}, {type: 'null'}]}` → `nullable` for a string, `nullable_T` otherwise; other parts → null. */
function nullableName(node: Json): string | null {
  const branches = node.anyOf as Json[] | undefined;
  if (Object.keys(node).length !== 1 || branches?.length !== 2) return null;
  const [value, none] = branches.map((branch) => JSON.stringify(branch));
  const type = /^\{"type":"(\w+)"\}$/.exec(value)?.[1];
  return type && none === '{"type":"null"}' ? (type === 'string' ? 'nullable' : `nullable_${type}`) : null;
}

/**
 * Writes each large part that appears more than once in a tool's input (add_drying_readings' row
 * of readings, in the body and in each of its rows), and each often repeated nullable type, once,
 * in `$defs`, named by the field it sits under (or `nullable`), and refers to it: an assistant
 * reads it once.
 */
function withSharedParts(schema: Json): Json {
  const seen = new Map<string, { name: string; count: number }>();
  const visit = (node: unknown, name: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, name);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const text = JSON.stringify(node);
    const nullable = nullableName(node as Json);
    if ((text.length >= SHARED_FROM || nullable) && name !== '') {
      const entry = seen.get(text) ?? { name: nullable ?? name, count: 0 };
      seen.set(text, { ...entry, count: entry.count + 1 });
    }
    for (const [key, value] of Object.entries(node))
      visit(value, key === 'properties' || key === 'items' ? name : key);
  };
  for (const [field, property] of Object.entries(schema.properties as Json)) visit(property, field);
  // The largest repeated parts first; a part inside one already shared goes with it.
  const shared = [...seen]
    .filter(([text, entry]) => entry.count >= (text.length >= SHARED_FROM ? 2 : SHARED_NULLABLE_FROM))
    .sort(([a], [b]) => b.length - a.length);
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
  const branches = (type as string[]).map((one) =>
    one === 'null'
      ? { type: 'null' }
      : { type: one, ...keywordsFor(one, keywords), ...(values ? { enum: values } : {}) },
  );
  return {
    ...(description ? { description } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
    anyOf: branches,
  };
}

const KEYWORDS_OF: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties'],
};

function keywordsFor(type: string, keywords: Json): Json {
  return Object.fromEntries(
    Object.entries(keywords).filter(([key]) => (KEYWORDS_OF[type] ?? []).includes(key)),
  );
}

/**
 * Where each answer is spelled out: the read tool (first by name) that returns it. A write that
 * answers the same (`update_job_overview` answers what `get_job` does) points there instead of
 * listing the fields again.
 */
function answerHomes(entries: OperationEntry[]): Map<string, string> {
  const homes = new Map<string, string>();
  const reads = entries.filter((entry) => entry.spec.scope === 'read' && entry.spec.outputSchema);
  for (const { spec } of reads.sort((a, b) => String(a.spec.name).localeCompare(String(b.spec.name)))) {
    const text = JSON.stringify(spec.outputSchema);
    if (!homes.has(text)) homes.set(text, String(spec.name));
  }
  return homes;
}

/**
 * The answer's top-level field names: what an assistant plans with, at a fraction of the tokens
 * of their types (each field's full shape is in the OpenAPI document). A field the answer always
 * has is listed as `required`, the cheaper way to name it; one it may lack, as a typed property. An
 * answer another tool spells out is named by that tool, with the fields it adds (an `allOf`:
 * `create_job` answers `get_job`'s job and its `possible_duplicates`).
 */
function outputOf(name: string, schema: Json | null, answers: Map<string, string>): Json | null {
  if (!schema) return null;
  const parts = [schema, ...((schema.allOf ?? []) as Json[])];
  const home = parts.map((part) => answers.get(JSON.stringify(part))).find((tool) => tool && tool !== name);
  const own = parts.filter((part) => !answers.has(JSON.stringify(part)) || !home);
  if (!home && !own.some((part) => part.type === 'object')) return null;
  const always = new Set(own.flatMap((part) => (part.required ?? []) as string[]));
  const fields = Object.assign({}, ...own.map((part) => (part.properties ?? {}) as Json)) as Record<
    string,
    Json
  >;
  const required = Object.keys(fields).filter((field) => always.has(field));
  // A field that may be missing is named as a property, typed: the inspector flags a bare `{}`.
  const optional = Object.entries(fields).filter(([field]) => !always.has(field));
  return {
    type: 'object',
    ...(home
      ? {
          description:
            Object.keys(fields).length > 0 ? `What \`${home}\` answers, and:` : `What \`${home}\` answers.`,
        }
      : {}),
    ...(required.length > 0 ? { required } : {}),
    ...(optional.length > 0
      ? { properties: Object.fromEntries(optional.map(([field, schema]) => [field, typeOnly(schema)])) }
      : {}),
  };
}

/** A field's type alone (null allowed where the spec allows it). */
function typeOnly(schema: Json): Json {
  const types = new Set<string>();
  const collect = (part: Json): void => {
    if (Array.isArray(part.type)) for (const one of part.type) types.add(String(one));
    else if (typeof part.type === 'string') types.add(part.type);
    for (const key of ['anyOf', 'oneOf']) for (const branch of (part[key] ?? []) as Json[]) collect(branch);
  };
  collect(schema);
  const list = [...types];
  if (list.length === 0)
    throw new Error(`an answer's field has no type: ${JSON.stringify(schema).slice(0, 80)}`);
  return list.length === 1 ? { type: list[0] } : { anyOf: list.map((one) => ({ type: one })) };
}

function mapValues(record: Record<string, Json>, fn: (value: Json) => Json): Record<string, Json> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
