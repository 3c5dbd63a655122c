/**
 * A signer's link to the signing page, made like the upload link (platform/person-links.ts): it
 * names the key that asked and the job, signed with the shared link secret, and ends when that
 * key is revoked. The form is the link's object (its id is in the path, and signed), the signer's
 * role its parameter `g`: a link opens one signer's part of one form, and no other.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Caller } from '../../platform/caller';
import type { LinkFacts, LinkSigner } from '../../platform/links';
import { callerOfLinkKey } from '../../platform/person-links';
import type { SignerRole } from './template-text';

export interface SignLink {
  companyId: string;
  keyId: string;
  jobId: string;
  formId: string;
  role: SignerRole;
  /** Unix seconds. */
  expires: number;
}

const ROLES: readonly string[] = ['customer', 'technician', 'office'];

function factsOf(link: SignLink): LinkFacts {
  return {
    purpose: 'sign',
    companyId: link.companyId,
    object: link.formId,
    extra: [link.keyId, link.jobId, link.role].join('\n'),
    expires: link.expires,
  };
}

/** The signed query of a signer's link: `c`, `k`, `j`, `g`, `e`, `s`. */
export async function signLinkQuery(signer: LinkSigner, link: SignLink): Promise<string> {
  return linkQueryWith(link, await signer.sign(factsOf(link)));
}

/** A link's query with its signature as given (a checked link's own, for the URLs its page posts to). */
export function linkQueryWith(link: SignLink, signature: string): string {
  return new URLSearchParams({
    c: link.companyId,
    k: link.keyId,
    j: link.jobId,
    g: link.role,
    e: String(link.expires),
    s: signature,
  }).toString();
}

/**
 * Which link was used, without the link itself (which would open the form): a digest of its
 * signature, kept on the signer and printed on the audit page.
 */
export function linkIdOf(signature: string): string {
  return `lnk_${createHash('sha256').update(signature).digest('hex').slice(0, 20)}`;
}

export interface SignLinkHolder {
  link: SignLink;
  linkId: string;
  /** The person of the key that made the link: what is done through it is entered as theirs. */
  caller: Caller;
}

/**
 * Checks the link a request to `/sign/{form_id}` came with: its signature and expiry (403
 * `link_invalid`, 410 `link_expired`), then that the key that made it still stands.
 */
export async function holderOfSignLink(
  db: Knex,
  signer: LinkSigner,
  formId: string,
  query: Record<string, unknown>,
): Promise<SignLinkHolder> {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : '');
  const role = text('g');
  const link: SignLink = {
    companyId: text('c'),
    keyId: text('k'),
    jobId: text('j'),
    formId,
    role: (ROLES.includes(role) ? role : 'customer') as SignerRole,
    expires: Number(query.e),
  };
  // A role that is none of the three was changed: its signature cannot match.
  await signer.check(factsOf(link), ROLES.includes(role) ? query.s : '');
  const caller = await callerOfLinkKey(db, link.companyId, link.keyId);
  return { link, linkId: linkIdOf(String(query.s)), caller };
}
