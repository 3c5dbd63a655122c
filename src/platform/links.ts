/**
 * Signed links: what the service hands out so that a browser or a program can open a file or a
 * page without an API key. A link names its purpose, company, object and expiry, and carries an
 * HMAC of them under a secret every node shares (LINK_SECRET, else one made on first start and
 * kept in the database). A changed character makes it invalid (403); a valid one past its expiry
 * is expired (410).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError } from './errors';

export type LinkPurpose = 'photo' | 'video' | 'document' | 'upload' | 'export_pdf' | 'export_zip' | 'sign';

/** What a link says; `extra` is anything else it is bound to (a key, a room). */
export interface LinkFacts {
  purpose: LinkPurpose;
  companyId: string;
  object: string;
  extra?: string;
  /** Unix seconds. */
  expires: number;
}

const SECRET_NAME = 'link_signing';
/** Expiries are rounded up to this step, so that a page of photos asked twice gets the same links (a browser can cache them). */
const EXPIRY_STEP_S = 600;

export class LinkSigner {
  private secret: Promise<Buffer> | null = null;

  constructor(
    private readonly db: Knex,
    private readonly configured: string | undefined,
  ) {}

  /** Unix seconds about `seconds` from now (rounded up to a step when `rounded`). */
  static expiryIn(seconds: number, rounded = true): number {
    const at = Math.floor(Date.now() / 1000) + seconds;
    return rounded ? Math.ceil(at / EXPIRY_STEP_S) * EXPIRY_STEP_S : at;
  }

  async sign(facts: LinkFacts): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(message(facts))
      .digest('base64url')
      .slice(0, 32);
  }

  /** Throws `link_invalid` (403) for a link the service did not sign as it reads, `link_expired` (410) for one past its time. */
  async check(facts: LinkFacts, signature: unknown): Promise<void> {
    const expected = Buffer.from(await this.sign(facts));
    const given = Buffer.from(typeof signature === 'string' ? signature : '');
    if (
      given.length !== expected.length ||
      !timingSafeEqual(given, expected) ||
      !Number.isSafeInteger(facts.expires)
    ) {
      throw new ApiError(
        403,
        'link_invalid',
        'This link is not valid: it may have been cut short or changed. Ask for a new link.',
      );
    }
    if (facts.expires * 1000 < Date.now()) {
      throw new ApiError(
        410,
        'link_expired',
        `This link expired on ${new Date(facts.expires * 1000).toUTCString()}. Ask for a new link.`,
      );
    }
  }

  /**
   * A key of its own for another use of the shared secret (MCP's requestState), derived from it
   * under a label, so that what one use signs is never valid for another.
   */
  async derivedKey(label: string): Promise<Buffer> {
    return createHmac('sha256', await this.key())
      .update(`jms derived key\n${label}`)
      .digest();
  }

  /** Loads the secret; done at start, so that no request's transaction waits on it. */
  async ready(): Promise<void> {
    await this.key();
  }

  private key(): Promise<Buffer> {
    this.secret ??= this.configured ? Promise.resolve(Buffer.from(this.configured)) : sharedSecret(this.db);
    return this.secret;
  }
}

function message(facts: LinkFacts): string {
  return [facts.purpose, facts.companyId, facts.object, facts.extra ?? '', String(facts.expires)].join('\n');
}

/** The first node to start makes the secret; every node reads the one that was kept. */
async function sharedSecret(db: Knex): Promise<Buffer> {
  await db('service_secrets')
    .insert({ name: SECRET_NAME, value: randomBytes(32).toString('base64') })
    .onConflict('name')
    .ignore();
  const row = await db('service_secrets').where({ name: SECRET_NAME }).first('value');
  return Buffer.from(row.value, 'base64');
}
