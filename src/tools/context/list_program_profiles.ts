import type { ReadHandler } from '../tool';
import { listProfiles } from '../../domain/company/program-profiles';

export const list_program_profiles: ReadHandler<'list_program_profiles'> = async ({ db, caller }) => ({
  data: await listProfiles(db, caller.companyId),
  next_cursor: null,
});
