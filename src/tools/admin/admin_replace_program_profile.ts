import type { AdminHandler } from '../tool';
import { replaceProfile } from '../../domain/company/program-profiles';

export const admin_replace_program_profile: AdminHandler<'admin_replace_program_profile'> = async (
  { db },
  { path, body },
) => replaceProfile(db, path.company_id, path.profile_id, body);
