import type { Knex } from 'knex';

export async function companyPricingRegion(db: Knex, companyId: string): Promise<string | null> {
  const company = await db('companies').where({ id: companyId }).first('pricing_region');
  return company?.pricing_region ?? null;
}
