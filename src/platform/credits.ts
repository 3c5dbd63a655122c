import { ApiError } from './errors';
import type { WriteCallContext } from './handler';

/**
 * Takes one estimate credit of the company, or answers 402 (and the write is rolled back). The
 * write's undo record keeps it, so that undoing the write gives it back (once: a replay of an
 * undone operation_id is refused).
 */
export async function useEstimateCredit(
  ctx: Pick<WriteCallContext, 'db' | 'caller' | 'rows'>,
): Promise<{ used: number; remaining: number }> {
  const [company] = await ctx
    .db('companies')
    .where({ id: ctx.caller.companyId })
    .where('credits', '>', 0)
    .decrement('credits', 1)
    .returning('credits');
  if (!company) {
    throw new ApiError(
      402,
      'insufficient_credits',
      'The company has no estimate credit left; an administrator can add credits. Nothing was saved.',
    );
  }
  ctx.rows.creditsUsed += 1;
  return { used: 1, remaining: company.credits };
}
