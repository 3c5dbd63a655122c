import type { Knex } from 'knex';
import { notFound } from '../../platform/errors';

/** The company named in an admin path, or 404. */
export async function requireCompany(db: Knex, companyId: string): Promise<void> {
  const company = await db('companies').where({ id: companyId }).first('id');
  if (!company) throw notFound('company');
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
