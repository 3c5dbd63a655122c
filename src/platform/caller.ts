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
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}
