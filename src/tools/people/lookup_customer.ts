import { normalPhone } from '../../domain/people/phones';
import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, pageOf } from '../../platform/pagination';
import { CANCELLED, formatAddress, type PersonOnJobRow } from '../../domain/jobs/job-records';
import { digitsOf } from '../../domain/jobs/search-text';
import { likeContains } from '../../infrastructure/db/like';

const DEFAULT_LIMIT = 25;
const MIN_PHONE_DIGITS = 4;

/** A contact: a person's own fields, without a role (roles are per job). */
type ContactRow = Omit<PersonOnJobRow, 'role'>;

export const lookup_customer: ReadHandler<'lookup_customer'> = async ({ db, caller }, { query }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const words = query.q.trim().toLowerCase();
  const digits = digitsOf(words);
  const contacts = db('contacts as c')
    .where('c.company_id', caller.companyId)
    .where((match) => {
      match
        .whereRaw('lower(c.name) like ?', [likeContains(words)])
        .orWhereRaw('lower(c.email) like ?', [likeContains(words)]);
      if (digits.length >= MIN_PHONE_DIGITS) match.orWhere('c.phone_digits', 'like', `%${digits}%`);
    });
  if (query.role) {
    contacts.whereExists(
      db('job_contacts as r')
        .whereRaw('r.contact_id = c.id')
        .where('r.role', query.role.trim().toLowerCase()),
    );
  }
  if (query.cursor) {
    const after = decodeCursor(query.cursor, { name: 'text', id: 'text' });
    contacts.whereRaw('(c.name, c.id) > (?, ?)', [after.name, after.id]);
  }
  const rows = (await contacts
    .orderBy([{ column: 'c.name' }, { column: 'c.id' }])
    .limit(limit + 1)
    .select('c.*')) as ContactRow[];
  const page = pageOf(
    rows,
    limit,
    (row) => row,
    (row) => encodeCursor({ name: row.name, id: row.id }),
  );

  const jobs = await db('job_contacts as jc')
    .join('jobs as j', 'j.id', 'jc.job_id')
    .join('statuses as s', 's.id', 'j.status_id')
    .whereIn(
      'jc.contact_id',
      page.data.map((c) => c.id),
    )
    .orderBy('j.job_number', 'desc')
    .select(
      'jc.contact_id',
      'jc.role',
      'j.id',
      'j.job_number',
      'j.title',
      'j.cancelled_at',
      's.name as status_name',
      'j.address_line1',
      'j.city',
      'j.region',
      'j.postal_code',
    );

  return {
    data: page.data.map((contact) => {
      const own = jobs.filter((j) => j.contact_id === contact.id);
      const newestAsCustomer = own.find((j) => j.role === 'customer');
      return {
        id: contact.id,
        name: contact.name,
        phone: contact.phone,
        phone_normalized: normalPhone(contact.phone),
        email: contact.email,
        address: formatAddress(contact) ?? (newestAsCustomer ? formatAddress(newestAsCustomer) : null),
        roles: [...new Set(own.map((j) => j.role as string))],
        jobs: own.map((j) => ({
          id: j.id,
          job_number: j.job_number,
          title: j.title,
          status: j.cancelled_at ? CANCELLED : j.status_name,
          role: j.role,
        })),
      };
    }),
    next_cursor: page.next_cursor,
  };
};
