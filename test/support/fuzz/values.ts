/**
 * fast-check arbitraries derived from JSON Schemas of the spec: values that the schema allows,
 * mixed with values the running service knows (real ids, status and teammate names, price-list
 * codes), so that generated requests get past "not found" and reach the handlers' own logic.
 */
import fc from 'fast-check';
import type { Schema } from './operations';

/** Known-good values by field or parameter name, e.g. `status` → the company's board. */
export type Hints = Record<string, readonly unknown[]>;

const WORDS = [
  'Alvarez',
  'Kitchen',
  'water',
  'Dana',
  'drywall',
  'Birch Lane',
  'State Farm',
  '555-201-3344',
  'dehumidifier',
  'x',
  'Ñandú',
  '東京',
  '🙂',
];

/** Addresses at the edges of the spec's Email rule that it still allows. */
const EMAIL_EDGES = [
  'pshah@carrier.example',
  'a@b.co',
  "o'brien+claims@sub-1.example.co.uk",
  "!#$%&'*+/=?^_`{|}~-@x.io",
  'A.B.C@EXAMPLE.COM',
  '0@0.0',
];

/** Strings of every kind: words, plain ASCII, any Unicode (astral planes included). */
function textArb(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, 40));
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...WORDS).filter(fits) },
    { weight: 2, arbitrary: fc.string({ minLength, maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: max }).filter(fits) },
  );
}

/** Real calendar days from 0001-01-01 to 9999-12-31, with the edges and leap days weighted in. */
export const calendarDateArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .date({
        min: new Date('2020-01-01T00:00:00Z'),
        max: new Date('2030-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('0001-01-01', '9999-12-31', '2024-02-29', '2000-02-29', '1900-02-28'),
  },
);

function numberBounds(schema: Schema, integer: boolean): { min: number; max: number } {
  const step = integer ? 1 : 0.01;
  const min =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + step
        : -1_000_000;
  const max =
    typeof schema.maximum === 'number'
      ? schema.maximum
      : typeof schema.exclusiveMaximum === 'number'
        ? schema.exclusiveMaximum - step
        : 1_000_000;
  return { min, max };
}

function numberArb(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const { min, max } = numberBounds(schema, integer);
  const ints = fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  const edges = fc.constantFrom(...[min, max].map((n) => (integer ? Math.round(n) : n)));
  if (integer) return fc.oneof({ weight: 4, arbitrary: ints }, { weight: 1, arbitrary: edges });
  // Hundredths are what people send (8.2, 4.35, 0.07); any double within range tests the rest.
  const hundredths = fc
    .integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) })
    .map((n) => n / 100);
  const doubles = fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true })
    .map((n) => (Object.is(n, -0) ? 0 : n));
  return fc.oneof(
    { weight: 3, arbitrary: hundredths },
    { weight: 2, arbitrary: ints },
    { weight: 1, arbitrary: doubles },
    { weight: 1, arbitrary: edges },
  );
}

function stringArb(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 200;
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength;
  switch (schema.format) {
    case 'date':
      return calendarDateArb;
    case 'date-time':
      return fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2040-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    case 'email': {
      // The spec's pattern is the rule (a bare `format: email` means different things to different
      // validators): only addresses it allows, its edges included.
      const rule = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : null;
      return fc
        .oneof(fc.constantFrom(...EMAIL_EDGES), fc.emailAddress())
        .filter((s) => fits(s) && (!rule || rule.test(s)));
    }
    case 'uri':
      // Only addresses that are refused or never resolved: a fuzzer must not reach the network.
      return fc.constantFrom(
        'http://127.0.0.1:9/hook',
        'https://10.0.0.1/x',
        'http://[::1]/y',
        'ftp://127.0.0.1/z',
        'mailto:someone@example.invalid',
      );
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  }
  return textArb(minLength, maxLength);
}

function arrayArb(schema: Schema, hints: Hints, field: string): fc.Arbitrary<unknown[]> {
  const items = (schema.items ?? {}) as Schema;
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxLength = Math.max(
    minLength,
    Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 4, 4),
  );
  const item = valueArb(items, hints, field);
  return schema.uniqueItems
    ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
    : fc.array(item, { minLength, maxLength });
}

/** `anyOf: [{required: [a]}, {required: [b]}]` beside `properties`: one of the key sets must be present. */
function requiredAlternatives(schema: Schema): string[][] {
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (!alternatives || !schema.properties) return [];
  return alternatives
    .filter((alt) => Array.isArray(alt.required) && !alt.type && !alt.properties)
    .map((alt) => alt.required as string[]);
}

function objectArb(schema: Schema, hints: Hints): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const alternatives = requiredAlternatives(schema);
  const pickAlternative = alternatives.length
    ? fc.constantFrom(...alternatives)
    : fc.constant([] as string[]);
  return pickAlternative.chain((forced) => {
    const requiredKeys = Object.keys(properties).filter(
      (name) => required.has(name) || forced.includes(name),
    );
    const model = Object.fromEntries(
      Object.entries(properties).map(([name, sub]) => [name, valueArb(sub, hints, name)]),
    );
    return fc.record(model, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
  });
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

/** A value the schema allows (nearly always: patterns and formats are honoured, not every combination). */
export function valueArb(schema: Schema, hints: Hints, field = ''): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const branches = ((schema.oneOf ?? schema.anyOf) as Schema[] | undefined)?.filter(
    (b) => typesOf(b).length > 0 || b.enum,
  );
  if (branches?.length && !schema.properties)
    return fc.oneof(...branches.map((b) => valueArb(b, hints, field)));

  const types = typesOf(schema);
  const generic = fc.oneof(
    ...types.map((type) => {
      const arbitrary = ((): fc.Arbitrary<unknown> => {
        switch (type) {
          case 'null':
            return fc.constant(null);
          case 'string':
            return stringArb(schema);
          case 'integer':
            return numberArb(schema, true);
          case 'number':
            return numberArb(schema, false);
          case 'boolean':
            return fc.boolean();
          case 'array':
            return arrayArb(schema, hints, field);
          case 'object':
            return objectArb(schema, hints);
          default:
            return fc.constant(null);
        }
      })();
      return { weight: type === 'null' ? 1 : 4, arbitrary };
    }),
  );
  // Writes need operation_ids that do not collide by chance (a collision is a replay or a 409).
  if (field === 'operation_id' && types.includes('string'))
    return fc.oneof({ weight: 6, arbitrary: fc.uuid() }, { weight: 1, arbitrary: generic });
  const known = hints[field]?.filter((value) =>
    types.some((type) => (type === 'integer' ? Number.isInteger(value) : typeof value === type)),
  );
  if (!known?.length || types.includes('array') || types.includes('object')) return generic;
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: generic });
}
