/**
 * Who did it on site: a teammate named by a request (a technician may have no key), recorded
 * beside the key's person who entered it. The feed's sentences say both when they differ.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import type { Caller } from '../../platform/caller';
import { findTeammate } from '../company/lookups';

export type OnSiteRef = components['schemas']['OnSiteRef'];

/** The teammate a request names by `by`; null when it names none (the key's person did it). */
export async function onSiteTeammate(
  db: Knex,
  caller: Caller,
  given: string | undefined,
): Promise<OnSiteRef> {
  if (given === undefined) return null;
  const teammate = await findTeammate(db, caller.companyId, given);
  return { id: teammate.id, name: teammate.name };
}

/** "by Marco Diaz (entered by Jordan Reyes)", or "by Jordan Reyes" when the key's person did it. */
export function doneBy(caller: Pick<Caller, 'personId' | 'personName'>, onSite: OnSiteRef): string {
  return onSite && onSite.id !== caller.personId
    ? `by ${onSite.name} (entered by ${caller.personName})`
    : `by ${caller.personName}`;
}

/** A stored teammate's id and name (read with a left join) as a reference, null when none. */
export function onSiteRefOf(id: string | null | undefined, name: string | null | undefined): OnSiteRef {
  return id ? { id, name: name ?? '' } : null;
}
