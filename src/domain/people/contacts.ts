/** People on jobs: the contact (company-wide) and their role on one job (job_contacts). */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import type { WriteCallContext } from '../../platform/handler';
import { notFound } from '../../platform/errors';
import { toJobPerson, type PersonOnJobRow } from '../jobs/job-records';
import { digitsOf, refreshJobSearch } from '../jobs/search-text';

type AddressInput = components['schemas']['ContactAddressInput'];

export interface ContactChanges {
  name?: string;
  phone?: string | null;
  email?: string | null;
  address?: AddressInput | null;
}

/** The person `contactId` as they are on `jobId`, else 404. */
export async function personOnJob(
  db: Knex,
  jobId: string,
  contactId: string,
): Promise<PersonOnJobRow & { link_id: string }> {
  const row = await db('job_contacts as jc')
    .join('contacts as c', 'c.id', 'jc.contact_id')
    .where({ 'jc.job_id': jobId, 'jc.contact_id': contactId })
    .first(
      'c.id',
      'c.name',
      'jc.role',
      'c.phone',
      'c.email',
      'c.address_line1',
      'c.city',
      'c.region',
      'c.postal_code',
      'jc.id as link_id',
    );
  if (!row) throw notFound('person on this job');
  return row;
}

export async function jobPerson(
  db: Knex,
  jobId: string,
  contactId: string,
): Promise<components['schemas']['JobPerson']> {
  return toJobPerson(await personOnJob(db, jobId, contactId));
}

/** Contact columns for the given changes (an address sent as null clears all its parts). */
export function contactColumns(changes: ContactChanges): Record<string, string | null> {
  const columns: Record<string, string | null> = {};
  if (changes.name !== undefined) columns.name = changes.name.trim();
  if (changes.phone !== undefined) {
    columns.phone = changes.phone;
    columns.phone_digits = digitsOf(changes.phone ?? '');
  }
  if (changes.email !== undefined) columns.email = changes.email;
  if (changes.address !== undefined) {
    const address = changes.address ?? { line1: null, city: null, region: null, postal_code: null };
    const parts = {
      address_line1: address.line1,
      city: address.city,
      region: address.region,
      postal_code: address.postal_code,
    };
    for (const [column, value] of Object.entries(parts)) if (value !== undefined) columns[column] = value;
  }
  return columns;
}

/**
 * Applies changes to a contact and their role on a job; returns the names of what changed.
 * A contact is the same person on every job, so the search text of all their jobs follows.
 */
export async function changePerson(
  ctx: WriteCallContext,
  current: PersonOnJobRow & { link_id: string },
  changes: ContactChanges & { role?: string },
): Promise<string[]> {
  const columns = contactColumns(changes);
  const changedColumns = Object.keys(columns).filter(
    (c) => columns[c] !== current[c as keyof PersonOnJobRow] && c !== 'phone_digits',
  );
  if (changedColumns.length > 0) {
    await ctx.rows.update('contacts', current.id, columns);
    await refreshJobSearch(
      ctx,
      await ctx.db('job_contacts').where({ contact_id: current.id }).distinct('job_id').pluck('job_id'),
    );
  }
  const role = changes.role?.trim().toLowerCase();
  if (role && role !== current.role) {
    await ctx.rows.update('job_contacts', current.link_id, { role });
    changedColumns.push('role');
  }
  return changedColumns;
}
