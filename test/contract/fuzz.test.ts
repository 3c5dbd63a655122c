/**
 * Spec-driven fuzzing (issue #11, "no 500 on any input"). Requests are generated from the OpenAPI
 * document for every operation, HTTP tools and admin alike: valid ones and ones with a deliberate
 * fault. The run fails on any 5xx, on any answer the operation does not document (status, media
 * type or body, problem+json included), and on any write answered 2xx that the spec does not
 * allow. The uploads get multipart bodies built from their multipart schemas: the parts the spec
 * states, and ones with a part it does not allow, which must be a 400 naming that part. Then the
 * MCP endpoint gets tools/call with bad arguments.
 *
 * The seed is printed; FUZZ_SEED=<n> replays a run, FUZZ_PER_OP=<n> sets how many valid and how
 * many invalid requests each operation gets, FUZZ_OPS=a,b limits the run to some operations
 * (and prints the statuses each answered), FUZZ_CONCURRENCY=<n> sends n requests at a time.
 */
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { operations } from '../../src/generated/operations';
import { mcpTools } from '../../src/generated/mcp-tools';
import { startApp, type TestApp } from '../support/app';
import { loadOperations, type FuzzOperation } from '../support/fuzz/operations';
import { operationSchemas, type OperationSchemas } from '../support/operation-schemas';
import {
  describeRequest,
  bodyOf,
  invalidRequestArb,
  Picker,
  urlOf,
  validRequestArb,
  type FuzzRequest,
} from '../support/fuzz/requests';
import { answerProblems, requestAllowed } from '../support/fuzz/oracle';
import { buildWorld, type FuzzWorld } from '../support/fuzz/fixtures';
import { closeConnections, send } from '../support/fuzz/send';
import { faultyUploadArb, multipartOf, uploadShapeOf, validUploadArb } from '../support/fuzz/uploads';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const PER_OP = Number(process.env.FUZZ_PER_OP ?? 60);
const ONLY = process.env.FUZZ_OPS?.split(',').filter(Boolean);
// One request at a time by default, so that a seed replays the same run, state included;
// FUZZ_CONCURRENCY=4 overlaps requests (on PostgreSQL that also tests concurrent writes).
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 1);
const MAX_UNAUTHENTICATED = 30;
const MCP_PER_TOOL = Math.max(2, Math.round(PER_OP / 4));
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let t: TestApp;
let world: FuzzWorld;
let ops: FuzzOperation[];
let schemas: Map<string, OperationSchemas>;

beforeAll(async () => {
  schemas = operationSchemas();
  t = await startApp();
  world = await buildWorld(t);
  ops = (await loadOperations()).filter((op) => !ONLY || ONLY.includes(op.name));
});
afterAll(async () => {
  closeConnections();
  await t.close();
});

interface Failure {
  op: string;
  problem: string;
  request: string;
  mutation: string | null;
  answer: string;
}

function headersFor(world: FuzzWorld, req: FuzzRequest): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (req.auth !== 'none') headers.Authorization = world.authorization[req.auth];
  if (req.rawBody !== undefined || req.body !== undefined)
    headers['Content-Type'] = req.contentType ?? 'application/json';
  return headers;
}

/** Runs `work` over `items` with a few requests in flight, in order of start. */
async function inPool<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

function grouped(failures: Failure[]): string {
  const groups = new Map<string, Failure[]>();
  for (const failure of failures) {
    const key = `${failure.op}: ${failure.problem.replace(/\d{4,}/g, 'N').slice(0, 160)}`;
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  return [...groups.entries()]
    .map(
      ([key, list]) =>
        `${list.length}× ${key}\n    e.g. ${list[0].request}\n    fault: ${list[0].mutation ?? '(valid request)'}\n    answer: ${list[0].answer}`,
    )
    .join('\n');
}

describe('fuzzing the HTTP API from the spec', () => {
  it('answers every generated request without a 5xx, within the spec, and refuses every invalid write', async () => {
    const started = Date.now();
    const requests: FuzzRequest[] = [];
    for (const [index, op] of ops.entries()) {
      const seed = SEED + index * 7919;
      requests.push(...fc.sample(validRequestArb(op, world.hints), { seed, numRuns: PER_OP }));
      requests.push(...fc.sample(invalidRequestArb(op, world.hints), { seed: seed + 1, numRuns: PER_OP }));
    }
    // One shuffled order: operations run interleaved, each on what the others left behind.
    const pick = new Picker(SEED);
    for (let i = requests.length - 1; i > 0; i--) {
      const j = pick.int(i + 1);
      [requests[i], requests[j]] = [requests[j], requests[i]];
    }

    // Failed authentication is limited per client address: a few 401s are enough to test it.
    let unauthenticated = 0;
    for (const req of requests) {
      if ((req.auth === 'none' || req.auth === 'wrong') && ++unauthenticated > MAX_UNAUTHENTICATED)
        req.auth = req.op.startsWith('admin_') ? 'admin' : 'write';
    }

    const byName = new Map(ops.map((op) => [op.name, op]));
    const failures: Failure[] = [];
    const statusClasses: Record<string, number> = {};
    const succeeded = new Set<string>();
    const statusesByOp: Record<string, Record<number, number>> = {};
    await inPool(requests, async (req) => {
      const op = byName.get(req.op)!;
      const answer = await send(t.url, op.method, urlOf(op, req), headersFor(world, req), bodyOf(req)).catch(
        (error: Error) => ({ status: 0, contentType: '', text: `no answer: ${error.message}` }),
      );
      statusClasses[`${String(answer.status)[0]}xx`] =
        (statusClasses[`${String(answer.status)[0]}xx`] ?? 0) + 1;
      if (answer.status < 300) succeeded.add(op.name);
      statusesByOp[op.name] ??= {};
      const perOp = statusesByOp[op.name];
      perOp[answer.status] = (perOp[answer.status] ?? 0) + 1;
      const problems = answerProblems(op, answer);
      if (WRITES.has(op.method) && answer.status < 300 && !requestAllowed(op, req))
        problems.push('a write the spec does not allow was answered 2xx');
      for (const problem of problems) {
        failures.push({
          op: op.name,
          problem,
          request: describeRequest(op, req),
          mutation: req.mutation,
          answer: `${answer.status} ${answer.text.slice(0, 300)}`,
        });
      }
    });

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const classes = Object.entries(statusClasses)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const notReached = ops.filter((op) => !succeeded.has(op.name)).map((op) => op.name);
    console.log(
      `fuzz: seed ${SEED} (FUZZ_SEED), ${requests.length} requests over ${ops.length} operations in ${seconds} s; ${classes}; ` +
        `${succeeded.size}/${ops.length} operations answered 2xx at least once${notReached.length ? ` (not: ${notReached.join(', ')})` : ''}; ${failures.length} failures`,
    );
    if (ONLY) console.log(`statuses by operation: ${JSON.stringify(statusesByOp)}`);
    if (failures.length)
      throw new Error(
        `${failures.length} of ${requests.length} requests failed (seed ${SEED}):\n${grouped(failures)}`,
      );
    // The default run is at least 5,000 requests; FUZZ_PER_OP and FUZZ_OPS make shorter ones.
    if (!ONLY && !process.env.FUZZ_PER_OP) expect(requests.length).toBeGreaterThanOrEqual(5000);
  }, 600_000);
});

describe('fuzzing the uploads from their multipart schemas', () => {
  it('answers uploads within the spec: the parts it states are taken, any other part is a 400 naming it', async () => {
    const failures: Failure[] = [];
    let sent = 0;
    const jobId = String(world.hints.job_id[0]);
    for (const [index, op] of ops.entries()) {
      const shape = uploadShapeOf(op);
      if (!shape) continue;
      const seed = SEED + 15485863 + index * 7919;
      const perOp = Math.max(4, Math.round(PER_OP / 4));
      const uploads = [
        ...fc.sample(validUploadArb(shape, world.hints), { seed, numRuns: perOp }),
        ...fc.sample(faultyUploadArb(shape, world.hints), { seed: seed + 1, numRuns: perOp }),
      ];
      for (const upload of uploads) {
        const { contentType, body } = multipartOf(upload.parts);
        const answer = await send(
          t.url,
          'POST',
          op.path.replace('{job_id}', encodeURIComponent(jobId)),
          {
            Authorization: world.authorization.write,
            Accept: 'application/json',
            'Content-Type': contentType,
          },
          body,
        ).catch((error: Error) => ({ status: 0, contentType: '', text: `no answer: ${error.message}` }));
        sent++;
        const problems = answerProblems(op, answer);
        const errors = answer.status === 400 ? (JSON.parse(answer.text).errors as { path: string }[]) : [];
        const partNamed = (part: string) => errors.some((e) => e.path === `/body/${part}`);
        if (upload.fault && !partNamed(upload.fault.part))
          problems.push(`${upload.fault.what} was not refused with a 400 naming /body/${upload.fault.part}`);
        if (!upload.fault && errors.some((e) => e.path === `/body/${shape.filePart}` || e.path === '/body'))
          problems.push('an upload of the parts the spec states was refused for its parts');
        for (const problem of problems)
          failures.push({
            op: op.name,
            problem,
            request: upload.parts.map((p) => `${p.name}${p.filename ? `(${p.filename})` : ''}`).join(', '),
            mutation: upload.fault?.what ?? null,
            answer: `${answer.status} ${answer.text.slice(0, 300)}`,
          });
      }
    }
    console.log(`fuzz (uploads): seed ${SEED}, ${sent} multipart requests; ${failures.length} failures`);
    if (failures.length)
      throw new Error(`${failures.length} of ${sent} uploads failed (seed ${SEED}):\n${grouped(failures)}`);
  }, 300_000);
});

/** Over MCP a job may be given as a whole number (`{"job_id": 16}`): the server reads it as the text "16". */
function jobNumbersAsText(tool: string, args: unknown): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const numbered = mcpTools.find((t) => t.name === tool)!.numberArguments;
  return Object.fromEntries(
    Object.entries(args).map(([name, value]) => [
      name,
      numbered.includes(name) && Number.isInteger(value) ? String(value) : value,
    ]),
  );
}

describe('fuzzing MCP tools/call', () => {
  const problemSchema = () =>
    ops.find((op) => op.responses['400'])!.responses['400']['application/problem+json']!;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);

  it('answers bad arguments (arrays, strings, NUL, wrong types, …) with an invalid_request problem, never an internal error', async () => {
    const started = Date.now();
    const mcpOps = Object.values(operations).filter(
      (op) => op.mcp && op.scope !== 'admin' && (!ONLY || ONLY.includes(op.name)),
    );
    const calls: { tool: string; args: unknown; label: string }[] = [];
    for (const [index, op] of mcpOps.entries()) {
      // The tool's input schema is its own "operation": one JSON object of arguments.
      const asOperation: FuzzOperation = {
        name: op.name,
        method: 'POST',
        path: '/mcp',
        scope: op.scope,
        mcp: true,
        pathParams: [],
        queryParams: [],
        body: { schema: schemas.get(op.name)!.inputSchema, required: true },
        responses: {},
      };
      const seed = SEED + 104729 + index * 7919;
      const valid = fc.sample(validRequestArb(asOperation, world.hints), { seed, numRuns: MCP_PER_TOOL });
      const invalid = fc.sample(invalidRequestArb(asOperation, world.hints), {
        seed: seed + 1,
        numRuns: MCP_PER_TOOL,
      });
      for (const req of [...valid, ...invalid]) {
        let args: unknown = req.body;
        if (req.rawBody !== undefined) {
          try {
            args = JSON.parse(req.rawBody);
          } catch {
            args = req.rawBody;
          }
        }
        if (JSON.stringify(args ?? null).length > 512 * 1024) continue;
        calls.push({ tool: op.name, args, label: req.mutation ?? 'valid' });
      }
      for (const args of [
        [],
        ['x'],
        'x',
        42,
        true,
        [{ job_id: '#1' }],
        { job_id: '#1\u0000' },
        { nested: ['a\u0000'] },
        { q: 'x'.repeat(100_000) },
      ]) {
        calls.push({ tool: op.name, args, label: `arguments ${JSON.stringify(args).slice(0, 30)}` });
      }
    }

    const failures: Failure[] = [];
    let id = 0;
    await inPool(calls, async (call) => {
      const answer = await send(
        t.url,
        'POST',
        '/mcp',
        {
          Authorization: world.authorization.write,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
        JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name: call.tool, arguments: call.args },
        }),
      ).catch((error: Error) => ({ status: 0, contentType: '', text: `no answer: ${error.message}` }));
      const fail = (problem: string): void =>
        void failures.push({
          op: call.tool,
          problem,
          mutation: call.label,
          request: `arguments ${JSON.stringify(call.args)?.slice(0, 300)}`,
          answer: `${answer.status} ${answer.text.slice(0, 300)}`,
        });
      if (answer.status !== 200) return fail(`HTTP ${answer.status}`);
      const message = JSON.parse(answer.text) as {
        error?: { code: number };
        result?: {
          isError?: boolean;
          content: { type: string; text: string }[];
          structuredContent?: unknown;
        };
      };
      if (message.error) return fail(`JSON-RPC error ${message.error.code}`);
      const result = message.result!;
      const { inputSchema, outputSchema } = schemas.get(call.tool)!;
      // `arguments: null` is taken as no arguments, as the MCP server does; the arguments are
      // judged as they arrive, after JSON (1e999 is sent as null).
      const allowed = ajv.validate(
        inputSchema,
        JSON.parse(JSON.stringify(jobNumbersAsText(call.tool, call.args ?? {}))),
      );
      if (result.isError) {
        const problem = JSON.parse(result.content[0].text) as {
          code: string;
          status: number;
          errors?: unknown[];
        };
        if (!ajv.validate(problemSchema(), problem))
          fail(`the problem does not match the spec: ${ajv.errorsText()}`);
        if (result.structuredContent !== undefined) fail('an error result with structuredContent');
        if (problem.code === 'internal_error' || problem.status >= 500) return fail('internal error');
        if (!allowed && (problem.code !== 'invalid_request' || !problem.errors?.length))
          fail(`arguments that break the schema answered ${problem.code}, not invalid_request with errors`);
        return;
      }
      if (!allowed) return fail('arguments that break the schema were accepted');
      if (outputSchema && !ajv.validate(outputSchema, result.structuredContent))
        fail(`structuredContent does not match the output schema: ${ajv.errorsText()}`);
    });
    console.log(
      `fuzz (MCP): seed ${SEED}, ${calls.length} tools/call over ${mcpOps.length} tools in ${((Date.now() - started) / 1000).toFixed(1)} s; ${failures.length} failures`,
    );
    if (failures.length)
      throw new Error(
        `${failures.length} of ${calls.length} tool calls failed (seed ${SEED}):\n${grouped(failures)}`,
      );
  }, 300_000);
});
