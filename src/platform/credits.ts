import type { Knex } from 'knex';
import { ApiError } from './errors';

/** Takes one estimate credit of the company, or answers 402 (and the write is rolled back). */
export async function useEstimateCredit(trx: Knex.Transaction, companyId: string): Promise<{ used: number; remaining: number }> {
  const [company] = await trx('companies').where({ id: companyId }).where('credits', '>', 0).decrement('credits', 1).returning('credits');
  if (!company) {
    throw new ApiError(402, 'insufficient_credits', 'The company has no estimate credit left; an administrator can add credits. Nothing was saved.');
  }
  return { used: 1, remaining: company.credits };
}
