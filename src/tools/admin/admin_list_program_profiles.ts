import type { AdminHandler } from '../tool';
import { requireCompany } from '../../domain/admin/companies';
import { listProfiles } from '../../domain/company/program-profiles';

export const admin_list_program_profiles: AdminHandler<'admin_list_program_profiles'> = async (
  { db },
  { path },
) => {
  await requireCompany(db, path.company_id);
  return { data: await listProfiles(db, path.company_id), next_cursor: null };
};
