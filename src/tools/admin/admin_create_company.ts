import type { AdminHandler } from '../tool';
import { invalidRequest } from '../../platform/errors';
import { canonicalTimezone, createCompany } from '../../domain/admin/company-setup';

export const admin_create_company: AdminHandler<'admin_create_company'> = async ({ db }, { body }) => {
  if (body.timezone === undefined) return createCompany(db, body);
  const timezone = await canonicalTimezone(db, body.timezone);
  if (!timezone)
    throw invalidRequest([
      {
        path: '/body/timezone',
        message: 'must be an IANA timezone that the service knows, such as America/Chicago',
      },
    ]);
  return createCompany(db, { ...body, timezone });
};
