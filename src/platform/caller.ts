import type { Response } from 'express';

/** Who is calling: the key, its person and company. */
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
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}
