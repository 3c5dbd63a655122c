/**
 * The assistants (OAuth clients) the authorization server knows. A client is known one of two
 * ways: it registered (RFC 7591, dynamic registration), or its `client_id` is the https address
 * of its Client ID Metadata Document, which is fetched under the chat webhook's address rules (no
 * private, loopback or link-local target unless allowed, no redirect) and kept for an hour.
 * Every client is public: it proves itself with PKCE, and no client secret is issued or stored.
 */
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import {
  OAuthClientMetadataSchema,
  type OAuthClientInformationFull,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { getJson } from '../webhook-target';

export interface ClientDocumentSettings {
  allowPrivate: boolean;
  /** A certificate authority to trust besides the system's (tests). */
  ca: string | null;
}

const DOCUMENT_TTL_MS = 60 * 60_000;
const DOCUMENT_MAX_BYTES = 5_000;
const DOCUMENT_TIMEOUT_MS = 5_000;

/** A client_id that names a metadata document: https, with a path, no fragment. */
export function isMetadataDocumentId(clientId: string): boolean {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.pathname !== '/' && !url.hash;
  } catch {
    return false;
  }
}

/** The name an assistant is shown by on the approval page, in the feed and to the admin. */
export function clientNameOf(client: OAuthClientInformationFull): string {
  return (
    (client.client_name ?? '').trim().slice(0, 100) ||
    (isMetadataDocumentId(client.client_id) ? new URL(client.client_id).host : 'Unnamed assistant')
  );
}

export class ClientStore {
  constructor(
    private readonly db: Knex,
    private readonly documents: ClientDocumentSettings,
  ) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    const row = await this.db('oauth_clients')
      .where({ id: clientId })
      .first('metadata', 'kind', 'fetched_at');
    const fresh =
      row && (row.kind === 'registered' || Date.now() - new Date(row.fetched_at).getTime() < DOCUMENT_TTL_MS);
    if (fresh) return { ...parsed(row.metadata), client_id: clientId };
    return isMetadataDocumentId(clientId) ? this.fetchDocument(clientId) : undefined;
  }

  /** Dynamic registration: the client is stored as public whatever method it asked for. */
  async registerClient(
    asked: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): Promise<OAuthClientInformationFull> {
    const { client_secret: _secret, client_secret_expires_at: _expires, ...metadata } = asked;
    const client: OAuthClientInformationFull = {
      ...metadata,
      client_id: randomUUID(),
      client_id_issued_at: Math.floor(Date.now() / 1000),
      token_endpoint_auth_method: 'none',
    };
    await this.db('oauth_clients').insert({
      id: client.client_id,
      kind: 'registered',
      metadata: JSON.stringify(client),
    });
    return client;
  }

  /** A metadata document that cannot be fetched, or does not name itself, is no client. */
  private async fetchDocument(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    let body: unknown;
    try {
      ({ body } = await getJson(clientId, {
        allowPrivate: this.documents.allowPrivate,
        timeoutMs: DOCUMENT_TIMEOUT_MS,
        maxBytes: DOCUMENT_MAX_BYTES,
        ...(this.documents.ca ? { ca: this.documents.ca } : {}),
      }));
    } catch {
      return undefined;
    }
    const metadata = OAuthClientMetadataSchema.safeParse(body);
    if (!metadata.success || (body as { client_id?: unknown }).client_id !== clientId) return undefined;
    const client: OAuthClientInformationFull = {
      ...metadata.data,
      client_id: clientId,
      token_endpoint_auth_method: 'none',
    };
    await this.db('oauth_clients')
      .insert({
        id: clientId,
        kind: 'metadata_document',
        metadata: JSON.stringify(client),
        fetched_at: this.db.fn.now(),
      })
      .onConflict('id')
      .merge(['metadata', 'fetched_at']);
    return client;
  }
}

function parsed(metadata: unknown): OAuthClientInformationFull {
  return (typeof metadata === 'string' ? JSON.parse(metadata) : metadata) as OAuthClientInformationFull;
}
