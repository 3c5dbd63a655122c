import type { AdminHandler } from '../tool';
import { notFound } from '../../platform/errors';
import { toHundredths } from '../../platform/money';

/** Percent with two decimals are stored as basis points (6.25 % → 625). */
export const admin_set_estimate_rates: AdminHandler<'admin_set_estimate_rates'> = async (
  { db },
  { path, body },
) => {
  const [company] = await db('companies')
    .where({ id: path.company_id })
    .update({
      overhead_rate_bp: toHundredths(body.overhead_pct),
      profit_rate_bp: toHundredths(body.profit_pct),
      tax_rate_bp: toHundredths(body.tax_pct),
    })
    .returning(['overhead_rate_bp', 'profit_rate_bp', 'tax_rate_bp']);
  if (!company) throw notFound('company');
  return {
    overhead_pct: company.overhead_rate_bp / 100,
    profit_pct: company.profit_rate_bp / 100,
    tax_pct: company.tax_rate_bp / 100,
  };
};
