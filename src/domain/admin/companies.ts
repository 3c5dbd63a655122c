import type { Knex } from 'knex';
import { notFound, unknownName } from '../../platform/errors';

/** The company named in an admin path, or 404. */
export async function requireCompany(db: Knex, companyId: string): Promise<void> {
  const company = await db('companies').where({ id: companyId }).first('id');
  if (!company) throw notFound('company');
}

/** A team member of the company named in an admin path (id and name), or 422 unknown_person listing the team. */
export async function requireTeamMember(
  db: Knex,
  companyId: string,
  personId: string,
): Promise<{ id: string; name: string }> {
  const person = await db('people').where({ id: personId, company_id: companyId }).first('id', 'name');
  if (person) return person;
  const team = await db('people').where({ company_id: companyId }).orderBy('name').pluck('id');
  throw unknownName('unknown_person', 'team member', personId, team);
}

/**
 * The company named in an admin path, locked for the rest of the transaction, or 404. Changes to
 * a company's lists (board, referral sources) wait for one another: run side by side, each read
 * the list before the other wrote it, and they deadlocked or collided on the unique names.
 */
export async function lockCompany(trx: Knex.Transaction, companyId: string): Promise<void> {
  const company = await trx('companies').where({ id: companyId }).forNoKeyUpdate().first('id');
  if (!company) throw notFound('company');
}
