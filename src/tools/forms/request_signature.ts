import { lockedJob, type WriteHandler } from '../tool';
import { requestForm } from '../../domain/forms/request-form';

/** A form of a template on the locked job, with a signing link per signer (domain/forms/request-form.ts). */
export const request_signature: WriteHandler<'request_signature'> = async (ctx, { body }) =>
  requestForm(ctx, lockedJob(ctx), body);
