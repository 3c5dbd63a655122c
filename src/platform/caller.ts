/**
 * Who is calling: the key, its person and company. Through an assistant's OAuth grant, `keyId` is
 * the grant's id (its undo, operation_ids and rate limit are the grant's own) and `grant` says more.
 */
export interface Caller {
  keyId: string;
  keyPrefix: string;
  scope: 'read' | 'write';
  personId: string;
  personName: string;
  personRole: string;
  companyId: string;
  companyName: string;
  timezone: string;
  /** The company's chat notification (admin_set_chat): read with the key, so that a note does not ask for it. */
  chat: { webhookUrl: string | null; newNote: boolean };
  grant?: GrantCaller;
}

/** What an access token adds: the grant it carries, for one resource, until it expires. */
export interface GrantCaller {
  id: string;
  clientName: string;
  /** The toolsets chosen on the approval page; null: all. */
  toolsets: string[] | null;
  resource: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}
