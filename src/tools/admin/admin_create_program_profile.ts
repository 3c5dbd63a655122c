import type { AdminHandler } from '../tool';
import { createProfile } from '../../domain/company/program-profiles';

export const admin_create_program_profile: AdminHandler<'admin_create_program_profile'> = async (
  { db },
  { path, body },
) => createProfile(db, path.company_id, body);
