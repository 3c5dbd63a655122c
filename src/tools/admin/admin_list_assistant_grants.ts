import type { AdminHandler } from '../tool';
import { requireCompany } from '../../domain/admin/companies';

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

export const admin_list_assistant_grants: AdminHandler<'admin_list_assistant_grants'> = async (
  { db },
  { path },
) => {
  await requireCompany(db, path.company_id);
  const rows = await db('oauth_grants as g')
    .join('people as p', 'p.id', 'g.person_id')
    .leftJoin('api_keys as k', 'k.id', 'g.key_id')
    .where('g.company_id', path.company_id)
    .orderBy([{ column: 'g.created_at', order: 'desc' }, { column: 'g.id' }])
    .select(
      'g.id',
      'g.client_id',
      'g.client_name',
      'g.scope',
      'g.toolsets',
      'g.resource',
      'g.key_id',
      'g.created_at',
      'g.last_used_at',
      'g.revoked_at',
      'p.id as person_id',
      'p.name as person_name',
      db.raw(
        '(g.key_id is not null and (k.revoked_at is not null or k.secret_hash <> g.key_secret_hash)) as ended_by_key',
      ),
    );
  return {
    data: rows.map((g) => ({
      id: g.id,
      client: { id: g.client_id, name: g.client_name },
      person: { id: g.person_id, name: g.person_name },
      scope: g.scope,
      toolsets: typeof g.toolsets === 'string' ? JSON.parse(g.toolsets) : g.toolsets,
      resource: g.resource,
      approved_with: g.key_id ? ('api_key' as const) : ('sign_in_link' as const),
      created_at: new Date(g.created_at).toISOString(),
      last_used_at: iso(g.last_used_at),
      revoked_at: iso(g.revoked_at),
      ended_by_key: Boolean(g.ended_by_key),
    })),
    next_cursor: null,
  };
};
