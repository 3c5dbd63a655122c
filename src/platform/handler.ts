/**
 * The types of one tool call, from the generated `operations` of the spec: its input (path,
 * query, body) and output, who calls, and the context the pipeline runs it in. A handler that
 * reads a field the spec lacks, or answers with a shape the spec does not allow, does not
 * compile. The tools layer adds its own services and upload bodies (src/tools/tool.ts).
 */
import type { Knex } from 'knex';
import type { operations } from '../../sdk/src/schema';
import type { OperationName, ReadOperationName, WriteOperationName } from '../generated/operations';
import type { Config } from './config';
import type { RecordedWrites } from './undo';
import type { ChangeLog } from './changes';
import type { LinkSigner } from './links';
import type { Caller } from './caller';

type Op<N extends OperationName> = operations[N];

/** The tools of the API and of MCP, which the pipeline runs: every operation but the admin API's. */
export type ToolName = ReadOperationName | WriteOperationName;
type Never<T> = [T] extends [never] ? Record<string, never> : T extends undefined ? Record<string, never> : T;

export type PathOf<N extends OperationName> = Never<Op<N>['parameters']['path']>;
export type QueryOf<N extends OperationName> = Never<NonNullable<Op<N>['parameters']['query']>>;
/** The JSON body of the operation's request (an empty object when it has none). */
export type JsonBodyOf<N extends OperationName> =
  Op<N> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : Record<string, never>;

/** Path, query and body of one call, already validated against the spec. */
export interface ToolInput<N extends OperationName, Body = JsonBodyOf<N>> {
  path: PathOf<N>;
  query: QueryOf<N>;
  body: Body;
}

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<N extends OperationName> = Op<N>['responses'];
/** The JSON body of the operation's success answer (`undefined` for 204). */
export type Output<N extends OperationName> = {
  [S in keyof Responses<N> & SuccessStatus]: Responses<N>[S] extends {
    content: { 'application/json': infer B };
  }
    ? B
    : undefined;
}[keyof Responses<N> & SuccessStatus];

/**
 * Tells the caller how far a long call has come (`done` of `total`, growing). Over MCP a client
 * that sent a progressToken gets notifications; otherwise it does nothing.
 */
export type Progress = (done: number, total?: number, message?: string) => void;

export interface CallContext {
  db: Knex;
  caller: Caller;
  config: Config;
  progress: Progress;
  /** Signs the links answers hand out (files, pages). */
  links: LinkSigner;
  /** Waits for work done outside the call (OCR) without holding one of the company's slots. */
  waitAside<T>(work: Promise<T>): Promise<T>;
}

/**
 * A write runs inside one transaction; `rows` and `changes` feed undo and the change feed.
 * `subject` is what the write is about, locked before the handler runs (the job of `{job_id}`).
 */
export interface WriteCallContext<Subject = unknown> extends CallContext {
  db: Knex.Transaction;
  rows: RecordedWrites;
  changes: ChangeLog;
  subject: Subject;
}

export interface AdminContext {
  db: Knex;
  config: Config;
}
