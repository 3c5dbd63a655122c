/**
 * Runs one tool call, whichever transport it came from: the scope check, then for a read the
 * handler, and for a write the one write pipeline: a transaction that locks the record the write
 * is about, runs the handler, then stores the undo record, the answer under its operation_id and
 * the change-feed entries.
 */
import type { Knex } from 'knex';
import { operations, type OperationName, type ReadOperationName, type WriteOperationName } from '../generated/operations';
import { handlers } from '../tools';
import type { Config } from './config';
import { ApiError } from './errors';
import type { Caller, Output, Progress, ReadContext, ToolInput, WriteContext } from './handler';
import { ChangeLog, changeEntries } from './changes';
import { RecordedWrites, undoRecord } from './undo';
import { findAnswer, fingerprint, storedAnswer, type StoredAnswer } from './idempotency';
import { runTogether, sendTogether } from '../infrastructure/db/together';
import { lockJob, lockSubject } from './locks';
import type { CompanySlots } from './fair-share';
import type { MediaServices } from '../media-services';

export interface Deps {
  db: Knex;
  config: Config;
  slots: CompanySlots;
  media: MediaServices;
}

export interface ToolAnswer extends StoredAnswer {
  replayed: boolean;
}

type AnyInput = ToolInput<OperationName>;

export const noProgress: Progress = () => {};

export async function runTool(deps: Deps, name: ReadOperationName | WriteOperationName, caller: Caller, input: AnyInput, progress = noProgress): Promise<ToolAnswer> {
  return deps.slots.run(caller.companyId, () => runInSlot(deps, name, caller, input, progress));
}

/** A read tool's answer, typed, for code that shows what the tools answer (the PDF packet). */
export async function readTool<N extends ReadOperationName>(deps: Deps, caller: Caller, name: N, input: ToolInput<N>): Promise<Output<N>> {
  return (await runTool(deps, name, caller, input as unknown as AnyInput)).body as Output<N>;
}

/** A read key may call read tools only. */
export function checkScope(name: ReadOperationName | WriteOperationName, caller: Caller): void {
  if (operations[name].scope === 'write' && caller.scope !== 'write') {
    throw new ApiError(403, 'write_key_required', `${name} changes data and needs a write key; this key is read-only.`);
  }
}

async function runInSlot(deps: Deps, name: ReadOperationName | WriteOperationName, caller: Caller, input: AnyInput, progress: Progress): Promise<ToolAnswer> {
  const op = operations[name];
  checkScope(name, caller);
  if (op.scope === 'write') return runWrite(deps, name as WriteOperationName, caller, input, progress);
  const handler = handlers[name] as (ctx: ReadContext, input: AnyInput) => Promise<unknown>;
  const body = await handler({ ...servicesOf(deps, caller), db: deps.db, caller, config: deps.config, progress }, input);
  return { status: op.successStatus, body, replayed: false };
}

/** The node's services a handler may use. */
function servicesOf(deps: Deps, caller: Caller): Pick<ReadContext, 'links' | 'documents' | 'waitAside'> {
  return { links: deps.media.links, documents: deps.media.documents, waitAside: (work) => deps.slots.aside(caller.companyId, work) };
}

/** Writes with a body carry operation_id in it; DELETEs, which have none, in the query. */
function operationIdOf(input: AnyInput): string | undefined {
  return (input.body as { operation_id?: string }).operation_id ?? (input.query as { operation_id?: string }).operation_id;
}

/**
 * The stored answer of an earlier request with this input's operation_id (409 when its details
 * differ), or null. An intake that must do costly work before its write asks this first.
 */
export async function earlierAnswer(deps: Deps, name: WriteOperationName, caller: Caller, input: AnyInput): Promise<ToolAnswer | null> {
  const operationId = operationIdOf(input);
  const earlier = operationId ? await findAnswer(deps.db, caller, operationId, fingerprint(name, input)) : null;
  return earlier ? { ...earlier, replayed: true } : null;
}

async function runWrite(deps: Deps, name: WriteOperationName, caller: Caller, input: AnyInput, progress: Progress): Promise<ToolAnswer> {
  const operationId = operationIdOf(input);
  const print = fingerprint(name, input);

  // A replay is answered without opening a transaction.
  const earlier = await earlierAnswer(deps, name, caller, input);
  if (earlier) return earlier;

  for (let attempt = 1; ; attempt++) {
    try {
      return await writeOnce(deps, name, caller, input, operationId, print, progress);
    } catch (error) {
      // Whatever this request failed on (that key, or the state the other one left), the request
      // that committed first with this operation_id has the answer, and nothing of this one stays.
      const winner = operationId ? await findAnswer(deps.db, caller, operationId, print) : null;
      if (winner) return { ...winner, replayed: true };
      if (attempt < WRITE_ATTEMPTS && RETRYABLE.has((error as { code?: string }).code ?? '')) continue;
      throw error;
    }
  }
}

/**
 * A write made through a signed link for the link's person (downloading a packet finalises its
 * estimate): one transaction holding the job's lock, like a tool's write, with its feed entries.
 * It has no operation_id and no undo record: it is not a call of the key, and export_pdf's
 * description says why a finalisation is not taken back.
 */
export async function runLinkWrite<T>(deps: Deps, caller: Caller, jobId: string, write: (ctx: WriteContext) => Promise<T>): Promise<T> {
  return deps.slots.run(caller.companyId, () =>
    deps.db.transaction(async (trx) => {
      await lockJob(trx, caller.companyId, jobId);
      const ctx: WriteContext = { ...servicesOf(deps, caller), db: trx, caller, config: deps.config, progress: noProgress, rows: new RecordedWrites(trx, caller.companyId), changes: new ChangeLog() };
      const result = await write(ctx);
      await runTogether(trx, [changeEntries(trx, caller, ctx.changes.entries)]);
      return result;
    }),
  );
}

/**
 * PostgreSQL's answers that mean "nothing was saved, the same transaction may succeed now":
 * deadlock_detected and serialization_failure. Writes lock in one order (./locks), so these are
 * left to rare paths such as one contact changed from two of its jobs at once.
 */
const RETRYABLE = new Set(['40P01', '40001']);
const WRITE_ATTEMPTS = 3;

async function writeOnce(deps: Deps, name: WriteOperationName, caller: Caller, input: AnyInput, operationId: string | undefined, print: string, progress: Progress): Promise<ToolAnswer> {
  const handler = handlers[name] as (ctx: WriteContext, input: AnyInput) => Promise<unknown>;
  const { answer, tail } = await deps.db.transaction(async (trx) => {
    await lockSubject(trx, caller.companyId, input.path);
    const ctx: WriteContext = { ...servicesOf(deps, caller), db: trx, caller, config: deps.config, progress, rows: new RecordedWrites(trx, caller.companyId), changes: new ChangeLog() };
    const body = await handler(ctx, input);
    const answer = { status: operations[name].successStatus, body };
    const [described] = ctx.changes.entries;
    // The undo record, the stored answer and the feed entries go in one statement, sent just
    // ahead of COMMIT. The answer is stored under the operation_id's unique key: a same request
    // running alongside waits on it, and fails once this one commits.
    const { rows } = await sendTogether(trx, [
      described ? undoRecord(caller, name, ctx.rows, described, operationId) : null,
      operationId ? storedAnswer(caller, name, operationId, print, answer) : null,
      changeEntries(trx, caller, ctx.changes.entries),
    ]);
    return { answer, tail: rows };
  });
  // Had the tail failed, PostgreSQL would have answered the COMMIT by rolling everything back.
  await tail;
  return { ...answer, replayed: false };
}
