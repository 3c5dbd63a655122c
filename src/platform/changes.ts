/**
 * The change feed: one per company, oldest first. Positions come from the company's
 * `change_seq` counter, taken as the last step of a write transaction: the counter row stays
 * locked until commit, so a position is only handed out once every lower one is committed and a
 * poller reading "after N" can never skip an entry that commits later.
 */
import type { Knex } from 'knex';
import type { Caller } from './handler';
import { nextCounterValue } from './counters';
import type { components } from '../generated/api';

export type ChangeKind = components['schemas']['ChangeKind'];

export interface ChangeInput {
  kind: ChangeKind;
  action: string;
  summary: string;
  job?: { id: string; job_number: number } | null;
}

/** What a write handler says it changed; written by the pipeline when the handler succeeds. */
export class ChangeLog {
  readonly entries: ChangeInput[] = [];

  add(entry: ChangeInput): void {
    this.entries.push(entry);
  }
}

export async function appendChanges(trx: Knex.Transaction, caller: Caller, entries: ChangeInput[]): Promise<void> {
  if (entries.length === 0) return;
  const last = await nextCounterValue(trx, caller.companyId, 'change_seq', entries.length);
  await trx('change_entries').insert(
    entries.map((entry, index) => ({
      company_id: caller.companyId,
      seq: last - entries.length + index + 1,
      kind: entry.kind,
      action: entry.action,
      summary: entry.summary,
      job_id: entry.job?.id ?? null,
      job_number: entry.job?.job_number ?? null,
      person_id: caller.personId,
      key_id: caller.keyId,
      via_key: true,
    })),
  );
}
