import { randomBytes, randomInt, createHash } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export type IdPrefix =
  | 'co'
  | 'per'
  | 'key'
  | 'st'
  | 'ref'
  | 'job'
  | 'con'
  | 'jc'
  | 'asg'
  | 'note'
  | 'dry'
  | 'undo'
  | 'req'
  | 'nv'
  | 'chat'
  | 'est'
  | 'room'
  | 'line'
  | 'area'
  | 'rdg'
  | 'dnote'
  | 'skip'
  | 'pho'
  | 'vid'
  | 'doc'
  | 'jroom'
  | 'pkb'
  | 'eqp'
  | 'chb'
  | 'agr'
  | 'whk'
  | 'prg'
  | 'ftp'
  | 'frm'
  | 'sgn';

/** A prefixed id such as `job_7Qm2KxR9aB1c`: the prefix says what it names. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(12)}`;
}

/** A new API key: `jms_` and 40 base62 characters. Only its hash is stored. */
export function newApiKey(): { key: string; prefix: string; hash: string } {
  const key = `jms_${base62(40)}`;
  return { key, prefix: key.slice(0, 12), hash: hashSecret(key) };
}

/**
 * A one-time or bearer secret of the OAuth flow (`jms_at_…` access token, `jms_rt_…` refresh
 * token, `jms_ac_…` code, `jms_si_…` sign-in code): the prefix says what it is; only its hash is stored.
 */
export function newSecret(kind: 'at' | 'rt' | 'ac' | 'si'): string {
  return `jms_${kind}_${base62(43)}`;
}

/** A webhook endpoint's signing secret, as Standard Webhooks writes them: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
