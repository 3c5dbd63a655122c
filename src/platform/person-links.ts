/**
 * Links that act for a person: the upload page and the export links. Such a link names the key
 * that made it and its own parameters (a room, what a PDF holds), all signed with it. Whatever
 * is done through the link is the key's person's, and revoking the key ends its links.
 */
import type { Knex } from 'knex';
import { findCallerOfKeyId } from './auth';
import { ApiError, notFound } from './errors';
import type { LinkSigner, LinkFacts, LinkPurpose } from './links';
import type { Caller } from './caller';

export interface PersonLink<P extends string> {
  purpose: LinkPurpose;
  companyId: string;
  keyId: string;
  /** The job the link is for. */
  jobId: string;
  /** The link's own parameters by their short query name; '' when not set. */
  params: Record<P, string>;
  /** Unix seconds. */
  expires: number;
}

/**
 * What is signed: the key, then the parameters in the order the link's kind names them. A
 * parameter a kind gained later (`whenSet`) is signed only when set, as `name=value`, so that
 * the links made before it still check.
 */
function factsOf<P extends string>(
  link: PersonLink<P>,
  names: readonly P[],
  whenSet: readonly P[],
): LinkFacts {
  const always = names.filter((name) => !whenSet.includes(name)).map((name) => link.params[name]);
  const added = whenSet
    .filter((name) => link.params[name] !== '')
    .map((name) => `${name}=${link.params[name]}`);
  return {
    purpose: link.purpose,
    companyId: link.companyId,
    object: link.jobId,
    extra: [link.keyId, ...always, ...added].join('\n'),
    expires: link.expires,
  };
}

/** The signed query of a link (`c`, `k`, its parameters that are set, `e`, `s`). */
export async function personLinkQuery<P extends string>(
  signer: LinkSigner,
  link: PersonLink<P>,
  names: readonly P[],
  whenSet: readonly P[] = [],
): Promise<string> {
  const signature = await signer.sign(factsOf(link, names, whenSet));
  const params = Object.fromEntries(
    names.filter((name) => link.params[name] !== '').map((name) => [name, link.params[name]]),
  );
  return new URLSearchParams({
    c: link.companyId,
    k: link.keyId,
    ...params,
    e: String(link.expires),
    s: signature,
  }).toString();
}

/** The link a request was opened with: its query, and the job its path names. Not yet checked. */
export function personLinkOf<P extends string>(
  query: Record<string, unknown>,
  jobId: string,
  purpose: LinkPurpose,
  names: readonly P[],
): PersonLink<P> {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : '');
  return {
    purpose,
    companyId: text('c'),
    keyId: text('k'),
    jobId,
    params: Object.fromEntries(names.map((name) => [name, text(name)])) as Record<P, string>,
    expires: Number(query.e),
  };
}

/**
 * The person a link acts for: the key that made it, as long as that key stands in the link's
 * company (a revoked or rotated key's links answer 403 `link_invalid`).
 */
export async function callerOfLinkKey(db: Knex, companyId: string, keyId: string): Promise<Caller> {
  const caller = await findCallerOfKeyId(db, keyId);
  if (!caller || caller.companyId !== companyId) {
    throw new ApiError(
      403,
      'link_invalid',
      'This link no longer works: the key that made it was revoked. Ask for a new link.',
    );
  }
  return caller;
}

export interface LinkHolder {
  caller: Caller;
  job: { id: string; job_number: number; title: string | null; photo_count: number };
}

/**
 * Checks a link's signature and expiry (403, 410), then finds the person it acts for and its
 * job: a revoked key's links answer 403, a job no longer there 404.
 */
export async function holderOfLink<P extends string>(
  db: Knex,
  signer: LinkSigner,
  link: PersonLink<P>,
  names: readonly P[],
  signature: unknown,
  whenSet: readonly P[] = [],
): Promise<LinkHolder> {
  await signer.check(factsOf(link, names, whenSet), signature);
  const caller = await callerOfLinkKey(db, link.companyId, link.keyId);
  const job = await db('jobs')
    .where({ id: link.jobId, company_id: caller.companyId })
    .first('id', 'job_number', 'title', 'photo_count');
  if (!job) throw notFound('job');
  return { caller, job };
}
