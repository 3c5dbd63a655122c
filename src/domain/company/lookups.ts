/** Company names that callers type: teammates, statuses, referral sources (matched without case). */
import type { Knex } from 'knex';
import { ApiError, unknownName } from '../../platform/errors';

export interface TeammateRow {
  id: string;
  name: string;
  role: string;
}

/**
 * A teammate by id or full name, or else by a unique first name or word prefix ("dana" → "Dana Brooks").
 * Unknown → 422 `unknown_teammate`; several → 422 `ambiguous_teammate`; both list the team.
 */
export async function findTeammate(db: Knex, companyId: string, given: string): Promise<TeammateRow> {
  const team = (await db('people')
    .where({ company_id: companyId })
    .orderBy('name')
    .select('id', 'name', 'role')) as TeammateRow[];
  const wanted = given.trim().toLowerCase();
  const exact = team.filter((p) => p.name.toLowerCase() === wanted || p.id === given.trim());
  if (exact.length === 1) return exact[0];
  const partial =
    exact.length > 1
      ? exact
      : team.filter((p) =>
          p.name
            .toLowerCase()
            .split(/\s+/)
            .some((word) => word.startsWith(wanted)),
        );
  if (partial.length === 1) return partial[0];
  const names = team.map((p) => p.name);
  if (partial.length === 0) throw unknownName('unknown_teammate', 'teammate', given, names);
  throw new ApiError(
    422,
    'ambiguous_teammate',
    `"${given}" matches ${partial.map((p) => p.name).join(' and ')}; give the full name.`,
    {
      validValues: names,
    },
  );
}

/** The company's spelling of a referral source; unknown → 422 with the valid ones. */
export async function findReferralSource(db: Knex, companyId: string, given: string): Promise<string> {
  const sources = (await db('referral_sources')
    .where({ company_id: companyId })
    .orderBy('position')
    .pluck('name')) as string[];
  const match = sources.find((name) => name.toLowerCase() === given.trim().toLowerCase());
  if (!match) throw unknownName('unknown_referral_source', 'referral source', given, sources);
  return match;
}

export interface StatusRow {
  id: string;
  name: string;
  position: number;
}

export async function boardStatuses(db: Knex, companyId: string): Promise<StatusRow[]> {
  return db('statuses').where({ company_id: companyId }).orderBy('position').select('id', 'name', 'position');
}

/** The board's first status, as an SQL expression (new jobs start there). */
export function firstStatusId(db: Knex, companyId: string): Knex.Raw {
  return db.raw('select id from statuses where company_id = ? order by position limit 1', [companyId]);
}

/** A status by name; unknown → 422 `unknown_status` listing the board in order. */
export async function findStatus(db: Knex, companyId: string, given: string): Promise<StatusRow> {
  const board = await boardStatuses(db, companyId);
  const match = board.find((s) => s.name.toLowerCase() === given.trim().toLowerCase());
  if (!match)
    throw unknownName(
      'unknown_status',
      'status',
      given,
      board.map((s) => s.name),
    );
  return match;
}
