import type { Knex } from 'knex';
import { notFound } from '../../platform/errors';

/** The company named in an admin path, or 404. */
export async function requireCompany(db: Knex, companyId: string): Promise<void> {
  const company = await db('companies').where({ id: companyId }).first('id');
  if (!company) throw notFound('company');
}
