import type { AdminHandler } from '../tool';
import { deleteProfile } from '../../domain/company/program-profiles';

export const admin_delete_program_profile: AdminHandler<'admin_delete_program_profile'> = async (
  { db },
  { path },
) => {
  await deleteProfile(db, path.company_id, path.profile_id);
  return undefined;
};
