/**
 * Chat messages are written to an outbox in the same transaction as the note they announce: a
 * note that is saved is announced (by the delivery worker, even after a restart), a note whose
 * write fails or is a replay is not.
 */
import type { Knex } from 'knex';
import { newId } from '../../platform/ids';
import type { Caller } from '../../platform/caller';
import type { JobQueue } from '../../infrastructure/queue/job-queue';
import { deliverSoon } from './delivery';

const PREVIEW_LENGTH = 1500;

export async function queueNewNoteMessage(
  trx: Knex.Transaction,
  queue: JobQueue,
  caller: Caller,
  job: { job_number: number; title: string },
  text: string,
): Promise<void> {
  const { webhookUrl, newNote } = caller.chat;
  if (!webhookUrl || !newNote) return;
  const preview = text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}…` : text;
  await trx('chat_outbox').insert({
    id: newId('chat'),
    company_id: caller.companyId,
    webhook_url: webhookUrl,
    payload: JSON.stringify({
      text: `New note on job #${job.job_number} ${job.title} by ${caller.personName}:\n${preview}`,
    }),
  });
  await deliverSoon(queue, trx, caller.companyId);
}
