import type { AdminHandler } from '../../platform/handler';
import { invalidRequest } from '../../platform/errors';
import { createCompany, isTimezone } from './company-setup';

export const admin_create_company: AdminHandler<'admin_create_company'> = async ({ db }, { body }) => {
  if (body.timezone && !isTimezone(body.timezone)) {
    throw invalidRequest([{ path: '/body/timezone', message: 'must be an IANA timezone such as America/Chicago' }]);
  }
  return createCompany(db, body);
};
