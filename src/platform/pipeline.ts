/**
 * Runs one tool call, whichever transport it came from: the scope check, then for a read the
 * handler, and for a write the one write pipeline: a transaction that locks the record the write
 * is about, runs the handler, then stores the undo record, the answer under its operation_id and
 * the change-feed entries. It is handed the handler table and the services handlers get beside
 * the platform's own; it imports neither.
 */
import type { Knex } from 'knex';
import { operations, type OperationName, type WriteOperationName } from '../generated/operations';
import type { Config } from './config';
import { ApiError } from './errors';
import type { CallContext, Progress, ToolInput, ToolName, WriteCallContext } from './handler';
import { ChangeLog, changeEntries } from './changes';
import { RecordedWrites, undoRecord } from './undo';
import { findAnswer, fingerprint, storedAnswer, type StoredAnswer } from './idempotency';
import { runTogether, sendTogether } from '../infrastructure/db/together';
import { inTransaction } from '../infrastructure/db/transaction';
import type { CompanySlots } from './fair-share';
import type { LinkSigner } from './links';
import type { Caller } from './caller';

export interface ToolAnswer extends StoredAnswer {
  replayed: boolean;
}

type AnyInput = ToolInput<OperationName, unknown>;
/** A handler as the pipeline calls it; the tools layer types each one by its operation. */
type AnyHandler = (ctx: CallContext, input: AnyInput) => Promise<unknown>;

/** Locks what a write's path names, first (./locks.ts says why), and gives it to the handler. */
export type LockSubject<Subject> = (
  trx: Knex.Transaction,
  caller: Caller,
  path: Record<string, unknown>,
) => Promise<Subject>;

export interface PipelineOptions<Services extends object, Subject> {
  db: Knex;
  config: Config;
  slots: CompanySlots;
  links: LinkSigner;
  /** Every tool's handler, by tool name (src/tools/index.ts). */
  handlers: Record<ToolName, unknown>;
  /** What handlers get beside the platform's context, for one caller. */
  services: (caller: Caller) => Services;
  lockSubject: LockSubject<Subject>;
  /** Told once a write with feed entries has committed (webhook deliveries start from it); never throws. */
  entriesCommitted?: (companyId: string) => void;
}

export const noProgress: Progress = () => {};

/** A write's operation_id and the fingerprint of its inputs, once checked. */
interface Identified {
  operationId: string | undefined;
  print: string;
}

/** What a write's check found: the answer of an earlier same request, or the way to run this one. */
export type CheckedWrite = { replay: ToolAnswer } | { run(): Promise<ToolAnswer> };

/**
 * One call of a tool, its scope checked: what is left is to run it with its checked input.
 * `asSent` is the input its operation_id is kept under, when the input run adds to what the
 * client sent (a person's confirmation that MCP asked for): a repeat of the call as sent then
 * answers the write it made.
 */
export interface ToolCall {
  run(input: AnyInput, progress?: Progress, asSent?: AnyInput): Promise<ToolAnswer>;
}

/** A read key may call read tools only: checked once per call, when it is made (call, begin). */
function checkScope(name: ToolName, caller: Caller): void {
  if (operations[name].scope === 'write' && caller.scope !== 'write') {
    throw new ApiError(
      403,
      'write_key_required',
      `${name} changes data and needs a write key; this key is read-only.`,
    );
  }
}

/** Writes with a body carry operation_id in it; DELETEs, which have none, in the query. */
function operationIdOf(input: AnyInput): string | undefined {
  return (
    (input.body as { operation_id?: string }).operation_id ??
    (input.query as { operation_id?: string }).operation_id
  );
}

/**
 * PostgreSQL's answers that mean "nothing was saved, the same transaction may succeed now":
 * deadlock_detected and serialization_failure. Writes lock in one order (./locks), so these are
 * left to rare paths such as one contact changed from two of its jobs at once.
 */
const RETRYABLE = new Set(['40P01', '40001']);
const WRITE_ATTEMPTS = 3;

export class Pipeline<Services extends object = object, Subject = unknown> {
  constructor(private readonly options: PipelineOptions<Services, Subject>) {}

  get db(): Knex {
    return this.options.db;
  }

  /** Runs a tool call within the company's share of the node (./fair-share). */
  run(name: ToolName, caller: Caller, input: AnyInput, progress = noProgress): Promise<ToolAnswer> {
    return this.call(name, caller).run(input, progress);
  }

  /**
   * A tool call whose scope is checked now (a read key on a write tool is a 403), before its
   * input is: MCP refuses a read key before it looks at the arguments.
   */
  call(name: ToolName, caller: Caller): ToolCall {
    checkScope(name, caller);
    return {
      run: (input, progress = noProgress, asSent = input) =>
        this.options.slots.run(caller.companyId, () => this.runInSlot(name, caller, input, progress, asSent)),
    };
  }

  /**
   * A write in steps, each done once: its scope now, then its operation_id once the input is
   * known, then the write. An intake with costly work before the write (an upload's files) checks
   * the scope before it reads the body and the replay before it examines the files.
   */
  begin(name: WriteOperationName, caller: Caller): { check(input: AnyInput): Promise<CheckedWrite> } {
    checkScope(name, caller);
    return {
      check: async (input) => {
        const checked = await this.replayOf(name, caller, input);
        if ('replay' in checked) return checked;
        return {
          run: () => this.options.slots.run(caller.companyId, () => this.write(name, caller, input, checked)),
        };
      },
    };
  }

  /**
   * A write made through a signed link for the link's person (downloading a packet finalises its
   * estimate): one transaction holding the job's lock, like a tool's write, with its feed entries.
   * It has no operation_id and no undo record: it is not a call of the key, and export_pdf's
   * description says why a finalisation is not taken back.
   */
  linkWrite<T>(
    caller: Caller,
    jobId: string,
    write: (ctx: WriteCallContext<Subject> & Services) => Promise<T>,
  ): Promise<T> {
    return this.options.slots.run(caller.companyId, () =>
      inTransaction(this.options.db, async (trx) => {
        const ctx = this.writeContext(
          trx,
          caller,
          noProgress,
          await this.options.lockSubject(trx, caller, { job_id: jobId }),
        );
        const result = await write(ctx);
        await runTogether(trx, [...ctx.rows.atCommit, changeEntries(trx, caller, ctx.changes.entries)]);
        return { result, entries: ctx.changes.entries.length };
      }).then(({ result, entries }) => {
        if (entries > 0) this.options.entriesCommitted?.(caller.companyId);
        return result;
      }),
    );
  }

  private context(caller: Caller, progress: Progress): CallContext & Services {
    const { db, config, links, slots } = this.options;
    return {
      ...this.options.services(caller),
      db,
      caller,
      config,
      progress,
      links,
      waitAside: (work) => slots.aside(caller.companyId, work),
    };
  }

  private writeContext(
    trx: Knex.Transaction,
    caller: Caller,
    progress: Progress,
    subject: Subject,
  ): WriteCallContext<Subject> & Services {
    return {
      ...this.context(caller, progress),
      db: trx,
      rows: new RecordedWrites(trx, caller.companyId),
      changes: new ChangeLog(),
      subject,
    };
  }

  private handler(name: ToolName): AnyHandler {
    return this.options.handlers[name] as AnyHandler;
  }

  private async runInSlot(
    name: ToolName,
    caller: Caller,
    input: AnyInput,
    progress: Progress,
    asSent = input,
  ): Promise<ToolAnswer> {
    const op = operations[name];
    if (op.scope === 'write') {
      const checked = await this.replayOf(name as WriteOperationName, caller, asSent);
      return 'replay' in checked
        ? checked.replay
        : this.write(name as WriteOperationName, caller, input, checked, progress);
    }
    const body = await this.handler(name)(this.context(caller, progress), input);
    return { status: op.successStatus, body, replayed: false };
  }

  /** The answer of an earlier same request, found without opening a transaction; else what identifies this one. */
  private async replayOf(
    name: WriteOperationName,
    caller: Caller,
    input: AnyInput,
  ): Promise<{ replay: ToolAnswer } | Identified> {
    const operationId = operationIdOf(input);
    const print = fingerprint(name, input);
    const earlier = operationId ? await findAnswer(this.options.db, caller, operationId, print) : null;
    return earlier ? { replay: { ...earlier, replayed: true } } : { operationId, print };
  }

  private async write(
    name: WriteOperationName,
    caller: Caller,
    input: AnyInput,
    { operationId, print }: Identified,
    progress = noProgress,
  ): Promise<ToolAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.writeOnce(name, caller, input, operationId, print, progress);
      } catch (error) {
        // Whatever this request failed on (that key, or the state the other one left), the request
        // that committed first with this operation_id has the answer, and nothing of this one stays.
        const winner = operationId ? await findAnswer(this.options.db, caller, operationId, print) : null;
        if (winner) return { ...winner, replayed: true };
        if (attempt < WRITE_ATTEMPTS && RETRYABLE.has((error as { code?: string }).code ?? '')) continue;
        throw error;
      }
    }
  }

  private async writeOnce(
    name: WriteOperationName,
    caller: Caller,
    input: AnyInput,
    operationId: string | undefined,
    print: string,
    progress: Progress,
  ): Promise<ToolAnswer> {
    const { answer, tail, entries } = await inTransaction(this.options.db, async (trx) => {
      const ctx = this.writeContext(
        trx,
        caller,
        progress,
        await this.options.lockSubject(trx, caller, input.path),
      );
      const body = await this.handler(name)(ctx, input);
      const answer = { status: operations[name].successStatus, body };
      const described = ctx.changes.undoEntry;
      if (ctx.rows.changes.length > 0 && !described && !ctx.rows.outOfUndo)
        throw new Error(`${name} recorded rows without naming the feed entry undo shows`);
      // The inserts held for it, the undo record, the stored answer and the feed entries go in one
      // statement, sent just ahead of COMMIT. The answer is stored under the operation_id's unique
      // key: a same request running alongside waits on it, and fails once this one commits.
      const { rows } = await sendTogether(trx, [
        ...ctx.rows.atCommit,
        described ? undoRecord(caller, name, ctx.rows, described, operationId) : null,
        operationId ? storedAnswer(caller, name, operationId, print, answer) : null,
        changeEntries(trx, caller, ctx.changes.entries),
      ]);
      return { answer, tail: rows, entries: ctx.changes.entries.length };
    });
    // Had the tail failed, PostgreSQL would have answered the COMMIT by rolling everything back.
    await tail;
    if (entries > 0) this.options.entriesCommitted?.(caller.companyId);
    return { ...answer, replayed: false };
  }
}
