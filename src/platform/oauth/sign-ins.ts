/**
 * One-time sign-in links, made by an admin for a teammate who has no API key of their own: the
 * link signs a browser in to approve one assistant, as that person, with at most the scope the
 * admin chose. The code is stored as its hash; it works once, until it expires.
 */
import type { Knex } from 'knex';
import { hashSecret, newSecret } from '../ids';
import type { GrantScope } from './grants';

export interface SignIn {
  codeHash: string;
  companyId: string;
  companyName: string;
  personId: string;
  personName: string;
  scope: GrantScope;
  expiresAt: Date;
}

/** A new sign-in code for the person; the caller has checked that the person is of the company. */
export async function createSignIn(
  db: Knex,
  companyId: string,
  personId: string,
  scope: GrantScope,
  seconds: number,
): Promise<{ code: string; expiresAt: Date }> {
  const code = newSecret('si');
  const expiresAt = new Date(Date.now() + seconds * 1000);
  await db('oauth_sign_ins').insert({
    code_hash: hashSecret(code),
    company_id: companyId,
    person_id: personId,
    scope,
    expires_at: expiresAt,
  });
  return { code, expiresAt };
}

/** The sign-in a code stands for, while it is unused and unexpired. */
export async function findSignIn(db: Knex, code: string | null): Promise<SignIn | null> {
  if (!code) return null;
  const row = await db('oauth_sign_ins as s')
    .join('people as p', 'p.id', 's.person_id')
    .join('companies as c', 'c.id', 's.company_id')
    .where('s.code_hash', hashSecret(code))
    .whereNull('s.used_at')
    .where('s.expires_at', '>', db.fn.now())
    .first(
      's.code_hash',
      's.scope',
      's.expires_at',
      'p.id as person_id',
      'p.name as person_name',
      'c.id as company_id',
      'c.name as company_name',
    );
  if (!row) return null;
  return {
    codeHash: row.code_hash,
    companyId: row.company_id,
    companyName: row.company_name,
    personId: row.person_id,
    personName: row.person_name,
    scope: row.scope,
    expiresAt: new Date(row.expires_at),
  };
}

/** Uses the sign-in up; false when it was used meanwhile. */
export async function takeSignIn(db: Knex, codeHash: string): Promise<boolean> {
  const taken = await db('oauth_sign_ins')
    .where({ code_hash: codeHash })
    .whereNull('used_at')
    .update({ used_at: db.fn.now() })
    .returning('code_hash');
  return taken.length > 0;
}
