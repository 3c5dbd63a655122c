import type { AdminHandler } from '../tool';
import { requireCompany } from '../../domain/admin/companies';

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

export const admin_list_keys: AdminHandler<'admin_list_keys'> = async ({ db }, { path }) => {
  await requireCompany(db, path.company_id);
  const rows = await db('api_keys as k')
    .join('people as p', 'p.id', 'k.person_id')
    .where('k.company_id', path.company_id)
    .orderBy([{ column: 'k.created_at', order: 'desc' }, { column: 'k.id' }])
    .select(
      'k.id',
      'k.prefix',
      'k.scope',
      'k.created_at',
      'k.last_used_at',
      'k.revoked_at',
      'p.id as person_id',
      'p.name as person_name',
    );
  return {
    data: rows.map((k) => ({
      id: k.id,
      prefix: k.prefix,
      scope: k.scope,
      person: { id: k.person_id, name: k.person_name },
      created_at: k.created_at.toISOString(),
      last_used_at: iso(k.last_used_at),
      revoked_at: iso(k.revoked_at),
    })),
    next_cursor: null,
  };
};
