import type { AdminHandler } from '../tool';
import { pageByCreation } from '../../domain/admin/creation-order';

interface CompanyRow {
  id: string;
  name: string;
  timezone: string;
  pricing_region: string | null;
  credits: number;
}

export const admin_list_companies: AdminHandler<'admin_list_companies'> = async ({ db }, { query }) =>
  pageByCreation(
    db('companies as c').select('c.id', 'c.name', 'c.timezone', 'c.pricing_region', 'c.credits'),
    'c',
    query,
    (row: CompanyRow) => ({
      id: row.id,
      name: row.name,
      timezone: row.timezone,
      pricing_region: row.pricing_region,
      credits: row.credits,
    }),
  );
