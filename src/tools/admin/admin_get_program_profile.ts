import type { AdminHandler } from '../tool';
import { findProfile } from '../../domain/company/program-profiles';

export const admin_get_program_profile: AdminHandler<'admin_get_program_profile'> = async (
  { db },
  { path },
) => findProfile(db, path.company_id, path.profile_id);
