/**
 * Requests generated from an operation of the spec: valid ones (from its parameter and body
 * schemas, with known ids and names mixed in) and invalid ones (a valid request with one
 * deliberate fault: NUL and control characters, huge strings, wrong types, out-of-range numbers
 * and dates, emails the spec's rule refuses, forged ids and cursors, unknown fields, arrays for
 * objects, broken JSON, …).
 */
import fc from 'fast-check';
import type { FuzzOperation, Param, Schema } from './operations';
import { valueArb, type Hints } from './values';

export type Auth = 'write' | 'read' | 'admin' | 'none' | 'wrong';

export interface FuzzRequest {
  op: string;
  kind: 'valid' | 'invalid';
  /** What was done to make it invalid (`null` for a valid request). */
  mutation: string | null;
  auth: Auth;
  /** Path parameters, decoded; `rawPath` holds segments sent exactly as given (bad escapes). */
  path: Record<string, string>;
  rawPath: Record<string, string>;
  /** Query parameters as the server receives them: a string, or an array for a repeated key. */
  query: Record<string, string | string[]>;
  body?: unknown;
  /** Sent instead of JSON.stringify(body) when set. */
  rawBody?: string;
  contentType?: string;
}

/** A small deterministic generator, seeded from fast-check, for the choices a mutation makes. */
export class Picker {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }
  int(n: number): number {
    // mulberry32
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((((t ^ (t >>> 14)) >>> 0) % n) + n) % n;
  }
  one<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

function queryString(value: unknown): string | string[] {
  if (Array.isArray(value)) return value.map((v) => String(v));
  return String(value);
}

/** Mostly the right key; a read key on writes now and then (403), rarely none or a wrong one (401). */
function authFor(op: FuzzOperation, roll: number): Auth {
  if (roll === 99) return 'none';
  if (roll === 98) return 'wrong';
  if (op.scope === 'admin') return 'admin';
  if (roll < 92) return op.scope === 'write' ? 'write' : roll % 2 ? 'read' : 'write';
  return 'read';
}

/** Requests the spec allows (the key may still be the wrong one for the tool: that is 401/403). */
export function validRequestArb(op: FuzzOperation, hints: Hints): fc.Arbitrary<FuzzRequest> {
  const paramsArb = (params: Param[]) =>
    fc.record(Object.fromEntries(params.map((p) => [p.name, valueArb(p.schema, hints, p.name)])), {
      requiredKeys: params.filter((p) => p.required).map((p) => p.name),
    }) as fc.Arbitrary<Record<string, unknown>>;
  const bodyArb: fc.Arbitrary<unknown> = op.body
    ? op.body.required
      ? valueArb(op.body.schema, hints)
      : fc.option(valueArb(op.body.schema, hints), { nil: undefined, freq: 4 })
    : fc.constant(undefined);
  return fc
    .record({
      path: paramsArb(op.pathParams),
      query: paramsArb(op.queryParams),
      body: bodyArb,
      roll: fc.nat(99),
    })
    .map(({ path, query, body, roll }) => ({
      op: op.name,
      kind: 'valid' as const,
      mutation: null,
      auth: authFor(op, roll),
      path: Object.fromEntries(Object.entries(path).map(([k, v]) => [k, String(v)])),
      rawPath: {},
      query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, queryString(v)])),
      ...(body === undefined ? {} : { body }),
    }));
}

// ---------------------------------------------------------------------------------------------
// Mutations

type Key = string | number;
interface Leaf {
  where: 'path' | 'query' | 'body';
  keys: Key[];
  value: unknown;
}

function bodyLeaves(value: unknown, keys: Key[], out: Leaf[], containers: boolean): void {
  if (value !== null && typeof value === 'object') {
    if (containers && keys.length > 0) out.push({ where: 'body', keys, value });
    for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value))
      bodyLeaves(v, [...keys, k], out, containers);
  } else if (keys.length > 0) out.push({ where: 'body', keys, value });
}

function leaves(req: FuzzRequest, options: { containers?: boolean } = {}): Leaf[] {
  const out: Leaf[] = [];
  for (const [name, value] of Object.entries(req.path)) out.push({ where: 'path', keys: [name], value });
  for (const [name, value] of Object.entries(req.query)) out.push({ where: 'query', keys: [name], value });
  if (req.body !== undefined) bodyLeaves(req.body, [], out, options.containers === true);
  return out;
}

function setLeaf(req: FuzzRequest, leaf: Leaf, value: unknown): void {
  if (leaf.where === 'path') {
    // An empty segment would address another resource (`/notes/` is the list), not this operation.
    req.path[leaf.keys[0] as string] = String(value) || ' ';
    return;
  }
  if (leaf.where === 'query') {
    req.query[leaf.keys[0] as string] = queryString(value);
    return;
  }
  let target = req.body as Record<Key, unknown>;
  for (const key of leaf.keys.slice(0, -1)) target = target[key] as Record<Key, unknown>;
  target[leaf.keys[leaf.keys.length - 1]] = value;
}

const where = (leaf: Leaf) => `${leaf.where}/${leaf.keys.join('/')}`;

const CONTROL = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u2028',
  '\ufeff',
  '\uffff',
  '\ud800',
  '\udfff',
];

const BIG_NUMBERS: unknown[] = [
  1e21,
  2147483648,
  2147483647,
  -2147483649,
  // biome-ignore lint/correctness/noPrecisionLoss: past 2^53 on purpose, the value a JSON parser rounds
  9007199254740993,
  1e308,
  -1,
  0,
  -0.0,
  0.001,
  0.005,
  1.005,
  8.2,
  4.35,
  2.51,
  0.07,
  6.255,
  '999999999.99',
  '1e21',
  '2147483648',
  '-1',
  '12.345',
  '0x10',
  ' 5',
  '',
];

/** Addresses some readings of `format: email` take, and the spec's Email rule does not. */
const BAD_EMAILS = [
  '0@com',
  'ann@localhost',
  '"ann lee"@example.com',
  'ann..lee@example.com',
  '.ann@example.com',
  'ann@-example.com',
  'ann@example-.com',
  'ann@example.com.',
  'ann@[127.0.0.1]',
  'ann@exa_mple.com',
  'anné@example.com',
  'ann@',
  '@example.com',
];

const BAD_DATES = [
  '2024-02-30',
  '2024-13-01',
  '0000-01-01',
  '10000-01-01',
  '2024-2-3',
  '2023-02-29',
  '1900-02-29',
  '2024-00-10',
  '2024-01-32',
  'today',
  '2024-01-01T00:00:00Z',
  '-2024-01-01',
  '２０２４-01-01',
];

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const FORGED_CURSORS = [
  b64({ before: 2147483648 }),
  b64({ before: 2 ** 53 }),
  b64({ before: -1 }),
  b64({ before: '12' }),
  b64({ before: 1e21 }),
  b64({ offset: 2147483648 }),
  b64({ offset: 1e21 }),
  b64({ offset: -5 }),
  b64({ offset: 9007199254740991 }),
  b64({ txid: 2 ** 63, seq: 1 }),
  b64({ txid: 9007199254740991, seq: 9007199254740991 }),
  b64({ txid: 1, seq: 2147483648 }),
  b64({ name: '\u0000', id: 'con_x' }),
  b64({ name: 5, id: 6 }),
  b64({ name: 'a', id: '\u0000' }),
  b64({ name: [], id: {} }),
  b64('not json'),
  b64('[]'),
  b64('null'),
  '%%%',
  '\u0000',
  'e30',
  'x'.repeat(200),
];

/** Values of another JSON type than the one given. */
function otherTypes(value: unknown): unknown[] {
  const all: unknown[] = ['text', 42, 4.5, true, null, [], {}, [value], { value }];
  return all.filter(
    (candidate) =>
      typeof candidate !== typeof value ||
      Array.isArray(candidate) !== Array.isArray(value) ||
      (candidate === null) !== (value === null),
  );
}

type Mutation = (req: FuzzRequest, op: FuzzOperation, pick: Picker) => string | null;

const stringLeaves = (req: FuzzRequest) =>
  leaves(req).filter((l) => typeof l.value === 'string' || l.where !== 'body');

const MUTATIONS: Record<string, Mutation> = {
  control(req, _op, pick) {
    const candidates = stringLeaves(req);
    if (!candidates.length) return null;
    const leaf = pick.one(candidates);
    const char = pick.int(3) === 0 ? '\u0000' : pick.one(CONTROL);
    const text = String(leaf.value ?? '');
    const at = pick.int(text.length + 1);
    setLeaf(req, leaf, text.slice(0, at) + char + text.slice(at));
    return `control U+${char.charCodeAt(0).toString(16).padStart(4, '0')} in ${where(leaf)}`;
  },
  nul(req, _op, pick) {
    const candidates = stringLeaves(req);
    if (!candidates.length) return null;
    const leaf = pick.one(candidates);
    setLeaf(req, leaf, `${String(leaf.value ?? '')}\u0000`);
    return `NUL in ${where(leaf)}`;
  },
  huge(req, _op, pick) {
    const candidates = stringLeaves(req);
    if (!candidates.length) return null;
    const leaf = pick.one(candidates);
    // URLs stay under Node's 16 KiB header limit (past it the HTTP server answers 431 itself).
    const size = leaf.where === 'body' ? pick.one([20_001, 100_000, 600_000]) : pick.one([201, 3_000]);
    setLeaf(
      req,
      leaf,
      pick.int(2) ? 'x'.repeat(size) : '🙂'.repeat(Math.ceil(size / (leaf.where === 'body' ? 2 : 5))),
    );
    return `huge string (${size}) in ${where(leaf)}`;
  },
  hugeBody(req, op) {
    if (!op.body) return null;
    req.body = {
      ...(typeof req.body === 'object' && req.body && !Array.isArray(req.body) ? req.body : {}),
      padding: 'x'.repeat(1024 * 1024 + 10),
    };
    return 'body over 1 MiB';
  },
  unknownField(req, op, pick) {
    const name = pick.one([
      'surprise',
      '__proto__',
      'constructor',
      'Operation_ID',
      'x'.repeat(300),
      '',
      'a\u0000b',
    ]);
    if (
      op.body &&
      pick.int(2) &&
      req.body !== null &&
      typeof req.body === 'object' &&
      !Array.isArray(req.body)
    ) {
      // JSON.parse makes `__proto__` an own property, so send it as raw JSON.
      const raw = JSON.stringify(req.body);
      req.rawBody =
        raw === '{}' ? `{${JSON.stringify(name)}:1}` : `${raw.slice(0, -1)},${JSON.stringify(name)}:1}`;
      return `unknown body field ${JSON.stringify(name.slice(0, 20))}`;
    }
    req.query[name] = pick.one(['1', '', '\u0000']);
    return `unknown query parameter ${JSON.stringify(name.slice(0, 20))}`;
  },
  wrongType(req, _op, pick) {
    const candidates = leaves(req, { containers: true }).filter((l) => l.where === 'body');
    if (!candidates.length) return null;
    const leaf = pick.one(candidates);
    const value = pick.one(otherTypes(leaf.value));
    setLeaf(req, leaf, value);
    return `${JSON.stringify(value)} for ${where(leaf)}`;
  },
  bigNumber(req, _op, pick) {
    const numeric = leaves(req).filter(
      (l) => typeof l.value === 'number' || (l.where === 'query' && /^-?\d/.test(String(l.value))),
    );
    const candidates = numeric.length ? numeric : leaves(req);
    if (!candidates.length) return null;
    const leaf = pick.one(candidates);
    const value = pick.one(BIG_NUMBERS);
    setLeaf(req, leaf, value);
    return `${JSON.stringify(value)} for ${where(leaf)}`;
  },
  rawNumber(req, _op, pick) {
    const numeric = leaves(req).filter((l) => l.where === 'body' && typeof l.value === 'number');
    if (!numeric.length) return null;
    const leaf = pick.one(numeric);
    const marker = 987654.321;
    setLeaf(req, leaf, marker);
    const literal = pick.one([
      '1e999',
      '-1e999',
      '1e-999',
      '100000000000000000000000000000',
      '2147483648.0',
      '-0',
      '1E2',
    ]);
    req.rawBody = JSON.stringify(req.body).replace(String(marker), literal);
    return `raw ${literal} for ${where(leaf)}`;
  },
  badDate(req, op, pick) {
    const dated = leaves(req).filter((l) => typeof l.value === 'string' && /^\d{4}-\d\d-\d\d$/.test(l.value));
    const value = pick.one(BAD_DATES);
    if (dated.length) {
      const leaf = pick.one(dated);
      setLeaf(req, leaf, value);
      return `date ${value} for ${where(leaf)}`;
    }
    const param = op.queryParams.find(
      (p) => p.schema.format === 'date' || (p.schema.pattern as string | undefined)?.includes('02-29'),
    );
    if (param) {
      req.query[param.name] = value;
      return `date ${value} for query/${param.name}`;
    }
    const field = Object.entries((op.body?.schema.properties ?? {}) as Record<string, Schema>).find(
      ([, s]) => s.format === 'date',
    );
    if (field && req.body && typeof req.body === 'object' && !Array.isArray(req.body)) {
      (req.body as Record<string, unknown>)[field[0]] = value;
      return `date ${value} for body/${field[0]}`;
    }
    return null;
  },
  badEmail(req, _op, pick) {
    const emails = leaves(req).filter((l) => l.where === 'body' && /email$/.test(String(l.keys.at(-1))));
    if (!emails.length) return null;
    const leaf = pick.one(emails);
    const value = pick.one(BAD_EMAILS);
    setLeaf(req, leaf, value);
    return `email ${JSON.stringify(value)} for ${where(leaf)}`;
  },
  forgedCursor(req, op, pick) {
    if (!op.queryParams.some((p) => p.name === 'cursor')) return null;
    const value = pick.one(FORGED_CURSORS);
    req.query.cursor = value;
    return `cursor ${JSON.stringify(value.slice(0, 40))}`;
  },
  arrayForObject(req, op, pick) {
    if (!op.body) return null;
    const objects = leaves(req, { containers: true }).filter(
      (l) => l.where === 'body' && l.value !== null && typeof l.value === 'object' && !Array.isArray(l.value),
    );
    if (objects.length && pick.int(2)) {
      const leaf = pick.one(objects);
      setLeaf(req, leaf, [leaf.value]);
      return `array for ${where(leaf)}`;
    }
    req.body = pick.int(2) ? [] : [req.body ?? {}];
    return 'array for the body';
  },
  dropRequired(req, op, pick) {
    const body = req.body as Record<string, unknown> | undefined;
    const required = ((op.body?.schema.required ?? []) as string[]).filter(
      (name) => body && typeof body === 'object' && name in body,
    );
    const query = op.queryParams.filter((p) => p.required && p.name in req.query).map((p) => p.name);
    const names = [...required.map((n) => `body/${n}`), ...query.map((n) => `query/${n}`)];
    if (!names.length) return null;
    const chosen = pick.one(names);
    const [area, name] = chosen.split('/');
    if (area === 'body') delete body![name];
    else delete req.query[name];
    return `no ${chosen}`;
  },
  brokenBody(req, op, pick) {
    if (!op.body) return null;
    const variant = pick.int(3);
    if (variant === 0) {
      req.rawBody = pick.one([
        '{',
        '{"a":',
        'null',
        '"text"',
        '42',
        'true',
        '[1,2',
        '{"a":1,"a":2}',
        '\u0000',
        '{"operation_id":"\\u0000"}',
        '{"x":"\\ud800"}',
      ]);
      return `raw body ${JSON.stringify(req.rawBody)}`;
    }
    req.contentType = pick.one([
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/merge-patch+json',
    ]);
    req.rawBody = JSON.stringify(req.body ?? {});
    return `content type ${req.contentType}`;
  },
  forgedId(req, op, pick) {
    if (!op.pathParams.length) return null;
    const param = pick.one(op.pathParams);
    const current = req.path[param.name] ?? '';
    const prefix = /^([a-z]+_)/.exec(current)?.[1] ?? 'job_';
    const variants = [
      `${prefix}${'Z'.repeat(12)}`,
      `${prefix}`,
      `${prefix}${'a'.repeat(5000)}`,
      `est_${current.slice(4)}`,
      '#0',
      '#999999999',
      '#2147483648',
      '2147483648',
      '0',
      '-1',
      '%',
      '..',
      ' ',
      `${current} `,
      `${current}\u0000`,
      '\u0000',
      '💥',
      `${prefix}abc/def`,
    ];
    const raw = pick.int(5) === 0;
    if (raw) {
      req.rawPath[param.name] = pick.one([
        '%00',
        '%E0%A4%A',
        '%ZZ',
        '%ED%A0%80',
        '%C0%80',
        '%2e%2e',
        '%FF',
        `${encodeSegment(current)}%00`,
      ]);
      return `raw path ${param.name}=${req.rawPath[param.name]}`;
    }
    req.path[param.name] = pick.one(variants);
    return `path ${param.name}=${JSON.stringify(req.path[param.name].slice(0, 30))}`;
  },
  duplicateQuery(req, op, pick) {
    const names = op.queryParams.map((p) => p.name);
    if (!names.length) return null;
    const name = pick.one(names);
    const current = req.query[name];
    req.query[name] = [
      ...(Array.isArray(current) ? current : current === undefined ? ['1'] : [current]),
      pick.one(['2', 'x', '']),
    ];
    return `repeated query ${name}`;
  },
  operationId(req, op, pick) {
    const value = pick.one<unknown>([
      '\u0000',
      '',
      'x'.repeat(201),
      5,
      null,
      ['a'],
      { id: 1 },
      ' ',
      'op\u0000id',
    ]);
    if (op.body && req.body && typeof req.body === 'object' && !Array.isArray(req.body)) {
      (req.body as Record<string, unknown>).operation_id = value;
      return `operation_id ${JSON.stringify(value)}`;
    }
    if (op.queryParams.some((p) => p.name === 'operation_id') && typeof value === 'string') {
      req.query.operation_id = value;
      return `query operation_id ${JSON.stringify(value.slice(0, 20))}`;
    }
    return null;
  },
};

const MUTATION_NAMES = Object.keys(MUTATIONS);

/** A valid request with one fault (or two); falls back to an unknown field where a fault does not apply. */
export function invalidRequestArb(op: FuzzOperation, hints: Hints): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(validRequestArb(op, hints), fc.nat(), fc.nat(9)).map(([valid, seed, roll]) => {
    const req: FuzzRequest = structuredClone({ ...valid, kind: 'invalid' as const });
    const pick = new Picker(seed);
    req.auth = op.scope === 'admin' ? 'admin' : 'write';
    const applied: string[] = [];
    for (let i = 0; i < (roll === 0 ? 2 : 1); i++) {
      for (let tries = 0; tries < 6; tries++) {
        const name = pick.one(MUTATION_NAMES);
        const done = MUTATIONS[name](req, op, pick);
        if (done) {
          applied.push(done);
          break;
        }
      }
    }
    if (!applied.length) applied.push(MUTATIONS.unknownField(req, op, pick)!);
    req.mutation = applied.join('; ');
    return req;
  });
}

// ---------------------------------------------------------------------------------------------
// Sending

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function encodeSegment(value: string): string {
  // A lone surrogate cannot be percent-encoded as UTF-8: send what a client would (U+FFFD).
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD'));
}

export function urlOf(op: FuzzOperation, req: FuzzRequest): string {
  const path = op.path.replace(
    /\{(\w+)\}/g,
    (_m, name: string) => req.rawPath[name] ?? encodeSegment(req.path[name] ?? ''),
  );
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(req.query)) {
    for (const item of Array.isArray(value) ? value : [value])
      pairs.push(`${encodeSegment(name)}=${encodeSegment(item)}`);
  }
  return pairs.length ? `${path}?${pairs.join('&')}` : path;
}

export function bodyOf(req: FuzzRequest): string | undefined {
  if (req.rawBody !== undefined) return req.rawBody;
  return req.body === undefined ? undefined : JSON.stringify(req.body);
}

/** A short, replayable description of a request. */
export function describeRequest(op: FuzzOperation, req: FuzzRequest): string {
  const body = bodyOf(req);
  const shown = body && body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body;
  const url = urlOf(op, req);
  return `${op.method} ${url.length > 300 ? `${url.slice(0, 300)}…` : url} [${req.auth} key${req.contentType ? `, ${req.contentType}` : ''}]${shown === undefined ? '' : ` ${shown}`}`;
}
