/**
 * The types every handler is written against. Inputs and outputs come from the generated
 * `operations` of the spec, so a handler that reads a field the spec lacks, or answers with a
 * shape the spec does not allow, does not compile.
 */
import type { Knex } from 'knex';
import type { operations } from '../generated/api';
import type { AdminOperationName, OperationName, ReadOperationName, WriteOperationName } from '../generated/operations';
import type { Config } from './config';
import type { RecordedWrites } from './undo';
import type { ChangeLog } from './changes';
import type { LinkSigner } from './links';
import type { DocumentReader } from '../domain/documents/document-text';
import type { PreparedDocumentUpload, PreparedUpload, PreparedVideoUpload } from '../domain/media/prepared-upload';

type Op<N extends OperationName> = operations[N];
type Never<T> = [T] extends [never] ? Record<string, never> : T extends undefined ? Record<string, never> : T;

export type PathOf<N extends OperationName> = Never<Op<N>['parameters']['path']>;
export type QueryOf<N extends OperationName> = Never<NonNullable<Op<N>['parameters']['query']>>;
/** A multipart upload reaches its handler as its intake prepared it (src/transports/files/file-intake.ts). */
export type BodyOf<N extends OperationName> = N extends 'upload_job_photos'
  ? PreparedUpload
  : N extends 'upload_job_videos'
    ? PreparedVideoUpload
    : N extends 'upload_job_documents'
      ? PreparedDocumentUpload
      : Op<N> extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : Record<string, never>;

/** Path, query and body of one call, already validated against the spec. */
export interface ToolInput<N extends OperationName> {
  path: PathOf<N>;
  query: QueryOf<N>;
  body: BodyOf<N>;
}

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<N extends OperationName> = Op<N>['responses'];
/** The JSON body of the operation's success answer (`undefined` for 204). */
export type Output<N extends OperationName> = {
  [S in keyof Responses<N> & SuccessStatus]: Responses<N>[S] extends { content: { 'application/json': infer B } } ? B : undefined;
}[keyof Responses<N> & SuccessStatus];

/** Who is calling: the key, its person and company. */
export interface Caller {
  keyId: string;
  keyPrefix: string;
  scope: 'read' | 'write';
  personId: string;
  personName: string;
  personRole: string;
  companyId: string;
  companyName: string;
  timezone: string;
}

/**
 * Tells the caller how far a long call has come (`done` of `total`, growing). Over MCP a client
 * that sent a progressToken gets notifications; otherwise it does nothing.
 */
export type Progress = (done: number, total?: number, message?: string) => void;

export interface ReadContext {
  db: Knex;
  caller: Caller;
  config: Config;
  progress: Progress;
  /** Signs the links answers hand out (files, pages). */
  links: LinkSigner;
  /** Reads stored documents' text (kept pages, the text layer, OCR in the background). */
  documents: DocumentReader;
  /** Waits for work done outside the call (OCR) without holding one of the company's slots. */
  waitAside<T>(work: Promise<T>): Promise<T>;
}

/** A write runs inside one transaction; `rows` and `changes` feed undo and the change feed. */
export interface WriteContext extends ReadContext {
  db: Knex.Transaction;
  rows: RecordedWrites;
  changes: ChangeLog;
}

export interface AdminContext {
  db: Knex;
  config: Config;
}

export type ReadHandler<N extends ReadOperationName> = (ctx: ReadContext, input: ToolInput<N>) => Promise<Output<N>>;
export type WriteHandler<N extends WriteOperationName> = (ctx: WriteContext, input: ToolInput<N>) => Promise<Output<N>>;
export type AdminHandler<N extends AdminOperationName> = (ctx: AdminContext, input: ToolInput<N>) => Promise<Output<N>>;

export type HandlerTable = { [N in ReadOperationName]: ReadHandler<N> } & { [N in WriteOperationName]: WriteHandler<N> } & {
  [N in AdminOperationName]: AdminHandler<N>;
};
