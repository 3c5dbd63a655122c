import type { ReadHandler } from '../tool';
import { PERSON_COLUMNS, toTeamMember, type PersonRow } from '../../domain/admin/team-members';

/** Teammates without their email: an assistant assigns by name and reads what each does. */
export const list_team: ReadHandler<'list_team'> = async ({ db, caller }) => ({
  data: (
    (await db('people')
      .where({ company_id: caller.companyId })
      .orderBy('name')
      .select(PERSON_COLUMNS)) as PersonRow[]
  )
    .map(toTeamMember)
    .map(({ email: _email, ...teammate }) => teammate),
  next_cursor: null,
});
