/**
 * What a tool handler is written against: the platform's context of a call (src/platform/
 * handler.ts) with the services tools get beside it, the input of its operation (an upload's
 * body as its intake prepared it) and its output, all typed from the spec.
 */
import type {
  AdminOperationName,
  OperationName,
  ReadOperationName,
  WriteOperationName,
} from '../generated/operations';
import type {
  AdminContext,
  JsonBodyOf,
  Output,
  CallContext,
  ToolInput,
  WriteCallContext,
} from '../platform/handler';
import type { ToolServices } from '../domain/services';
import type { WriteSubject } from '../domain/write-subject';
import type { JobRow } from '../domain/jobs/job-records';
import type {
  PreparedDocumentUpload,
  PreparedUpload,
  PreparedVideoUpload,
} from '../domain/media/prepared-upload';

export type ReadContext = CallContext & ToolServices;
export type WriteContext = WriteCallContext<WriteSubject> & ToolServices;

/**
 * A multipart upload reaches its handler as its intake prepared it (src/transports/files/file-intake.ts);
 * verify_form its PDF as read by its route (src/transports/pages/signing-routes.ts).
 */
export type BodyOf<N extends OperationName> = N extends 'upload_job_photos'
  ? PreparedUpload
  : N extends 'upload_job_videos'
    ? PreparedVideoUpload
    : N extends 'upload_job_documents'
      ? PreparedDocumentUpload
      : N extends 'verify_form'
        ? { pdf: Buffer }
        : JsonBodyOf<N>;

export type Input<N extends OperationName> = ToolInput<N, BodyOf<N>>;

export type ReadHandler<N extends ReadOperationName> = (
  ctx: ReadContext,
  input: Input<N>,
) => Promise<Output<N>>;
export type WriteHandler<N extends WriteOperationName> = (
  ctx: WriteContext,
  input: Input<N>,
) => Promise<Output<N>>;
export type AdminHandler<N extends AdminOperationName> = (
  ctx: AdminContext,
  input: Input<N>,
) => Promise<Output<N>>;

export type HandlerTable = { [N in ReadOperationName]: ReadHandler<N> } & {
  [N in WriteOperationName]: WriteHandler<N>;
} & {
  [N in AdminOperationName]: AdminHandler<N>;
};

/** The job of a write's `{job_id}`, as the pipeline locked it before the handler ran. */
export function lockedJob(ctx: WriteContext): JobRow {
  if (!ctx.subject.job) throw new Error('lockedJob is for writes whose path names a job');
  return ctx.subject.job;
}
