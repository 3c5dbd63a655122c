/**
 * Keys found are remembered for a few seconds, which saves a query on nearly every request. A
 * revocation or rotation must still stop the old key at once, on every node:
 * - Every change to keys forgets what is remembered and moves `generation` on. A look-up that was
 *   already under way then is done again rather than remembered: it may have read the key as it
 *   was before the change.
 * - On PostgreSQL the change also sends a NOTIFY in its transaction. Every node LISTENs, forgets its
 *   keys when told, and acknowledges with a NOTIFY of its own; the node that made the change
 *   answers once every listening node has acknowledged (or after a timeout, when the TTL bounds
 *   what a silent node may still accept). A node whose listener is not connected remembers
 *   nothing until it is again.
 * On PGlite there is one node, and forgetting locally is enough.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import pg from 'pg';
import type { Caller } from './caller';

const TTL_MS = 5_000;
const LOOKUP_ATTEMPTS = 5;
const CHANNEL = 'jms_key_changes';
const ACK_CHANNEL = 'jms_key_changes_heard';
/** Names the listeners' sessions, so that a node can count how many must acknowledge. */
const LISTENER_NAME = 'jms-key-listener';
const ACK_TIMEOUT_MS = 2_000;
const RECONNECT_MS = 1_000;

const known = new Map<string, { caller: Caller; until: number }>();
let generation = 0;
/**
 * The hashes of every key and access token that stands, for clients whose address is over its
 * failed-authentication budget: a secret in it is looked up as any other (a valid key is never
 * refused for other clients' failures), any other is refused without a look-up. It is loaded
 * again after any key change (a new or rotated key is in it at once) and at least every minute
 * (access tokens, which are issued without a key change).
 */
let standing: { hashes: Set<string>; generation: number; until: number } | null = null;
let loadingStanding: Promise<Set<string>> | null = null;
const STANDING_MS = 60_000;
/** Listeners of this process that are not connected: while there is one, nothing is remembered. */
const disconnected = new Set<KeyChangeListener>();
const connected = new Set<KeyChangeListener>();

function forgetKnownKeys(): void {
  known.clear();
  generation++;
}

/** The caller of a key (by its hash), remembered or looked up with `find`. */
export async function callerOfKey(hash: string, find: () => Promise<Caller | null>): Promise<Caller | null> {
  const hit = known.get(hash);
  if (hit && hit.until > Date.now()) return hit.caller;
  let caller: Caller | null = null;
  for (let attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
    const started = generation;
    caller = await find();
    if (generation !== started) continue;
    if (caller && disconnected.size === 0) known.set(hash, { caller, until: Date.now() + TTL_MS });
    else known.delete(hash);
    return caller;
  }
  return caller;
}

/** Whether this node remembers the key as valid: a look-up then costs nothing. */
export function isRememberedKey(hash: string): boolean {
  return (known.get(hash)?.until ?? 0) > Date.now();
}

/**
 * Whether a secret (by its hash) is a key or an access token that stands. One query loads them
 * all when what this node holds is out of date; any number of secrets are then checked in memory.
 */
export async function isStandingSecret(db: Knex, hash: string): Promise<boolean> {
  return (await standingSecrets(db)).has(hash);
}

/** What isStandingSecret checks against, loaded now if out of date (a failed authentication warms it). */
export async function standingSecrets(db: Knex): Promise<Set<string>> {
  if (standing && standing.generation === generation && standing.until > Date.now()) return standing.hashes;
  loadingStanding ??= loadStanding(db).finally(() => {
    loadingStanding = null;
  });
  return loadingStanding;
}

async function loadStanding(db: Knex): Promise<Set<string>> {
  const started = generation;
  const rows = (await db
    .select('secret_hash as hash')
    .from('api_keys')
    .whereNull('revoked_at')
    .unionAll((q) =>
      q
        .select('token_hash as hash')
        .from('oauth_tokens')
        .where({ kind: 'access' })
        .whereNull('revoked_at')
        .where('expires_at', '>', db.fn.now()),
    )) as { hash: string }[];
  const hashes = new Set(rows.map((row) => row.hash));
  // A key changed while loading: what was read may be from before, so it is loaded again next time.
  standing = { hashes, generation: started, until: Date.now() + STANDING_MS };
  return hashes;
}

/**
 * Changes keys in a transaction that also tells every node, then forgets this node's keys and
 * waits until every listening node has acknowledged (when this node listens itself).
 */
export async function changeKeys<T>(db: Knex, change: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const nonce = randomUUID();
  const [listener] = connected;
  const acknowledged = listener?.expect(nonce);
  try {
    const result = await db.transaction(async (trx) => {
      const value = await change(trx);
      await trx.raw('select pg_notify(?, ?)', [CHANNEL, nonce]);
      return value;
    });
    forgetKnownKeys();
    if (listener && acknowledged) {
      const [row] = await db('pg_stat_activity')
        .where({ application_name: LISTENER_NAME })
        .whereRaw('datname = current_database()')
        .count<{ n: number }[]>('* as n');
      await acknowledged(Number(row.n));
    }
    return result;
  } finally {
    listener?.forget(nonce);
  }
}

/** A node's LISTEN connection for key changes made by any node (PostgreSQL only). */
export class KeyChangeListener {
  /** The connection being made or in use; a connection that failed is replaced once. */
  private client: pg.Client | null = null;
  private stopped = false;
  /** Acknowledgements counted for changes this node made: nonce → count and what to call at the end. */
  private readonly waiting = new Map<string, { count: number; needed: number; done: () => void }>();

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {
    disconnected.add(this);
  }

  /** Connects; resolves once listening (or retrying in the background after a failure). */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: LISTENER_NAME });
    this.client = client;
    client.on('notification', (message) => {
      const nonce = message.payload ?? '';
      if (message.channel === CHANNEL) {
        forgetKnownKeys();
        client.query('select pg_notify($1, $2)', [ACK_CHANNEL, nonce]).catch(() => undefined);
      } else this.countAcknowledgement(nonce);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}; LISTEN ${ACK_CHANNEL}`);
      disconnected.delete(this);
      connected.add(this);
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  /**
   * Starts counting acknowledgements of `nonce` (before the change is sent, so that none is
   * missed); the function returned resolves once `needed` have come, or after a timeout, when a
   * silent node falls back on the TTL.
   */
  expect(nonce: string): (needed: number) => Promise<void> {
    const wait = { count: 0, needed: Infinity, done: () => {} };
    this.waiting.set(nonce, wait);
    return (needed) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.logger.warn(
            { needed, heard: wait.count },
            'not every node acknowledged a key change within 2 s',
          );
          resolve();
        }, ACK_TIMEOUT_MS);
        wait.needed = needed;
        wait.done = () => {
          clearTimeout(timer);
          resolve();
        };
        this.countAcknowledgement(nonce, 0);
      });
  }

  forget(nonce: string): void {
    this.waiting.delete(nonce);
  }

  private countAcknowledgement(nonce: string, add = 1): void {
    const wait = this.waiting.get(nonce);
    if (!wait) return;
    wait.count += add;
    if (wait.count >= wait.needed) wait.done();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    connected.delete(this);
    disconnected.delete(this);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.stopped || this.client !== client) return;
    this.client = null;
    connected.delete(this);
    disconnected.add(this);
    forgetKnownKeys();
    this.logger.warn(
      { err: error },
      'key change listener lost; keys are looked up on every request until it is back',
    );
    void client.end().catch(() => undefined);
    setTimeout(() => {
      if (!this.stopped) void this.start();
    }, RECONNECT_MS).unref();
  }
}
