import type { AdminHandler } from '../tool';
import { ApiError, invalidRequest } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { boardStatuses } from '../../domain/company/lookups';
import { lockCompany } from '../../domain/admin/companies';

/** Keeps statuses that stay (matched without case), adds new ones, removes only empty ones. */
export const admin_set_statuses: AdminHandler<'admin_set_statuses'> = async ({ db }, { path, body }) => {
  const wanted = body.statuses.map((name) => name.trim());
  const lower = wanted.map((name) => name.toLowerCase());
  if (new Set(lower).size !== lower.length)
    throw invalidRequest([{ path: '/body/statuses', message: 'must not name a status twice' }]);

  return db.transaction(async (trx) => {
    await lockCompany(trx, path.company_id);
    const current = await boardStatuses(trx, path.company_id);
    const removed = current.filter((s) => !lower.includes(s.name.toLowerCase()));
    if (removed.length > 0) {
      const used = await trx('jobs')
        .whereIn(
          'status_id',
          removed.map((s) => s.id),
        )
        .distinct('status_id')
        .pluck('status_id');
      if (used.length > 0) {
        const names = removed.filter((s) => used.includes(s.id)).map((s) => s.name);
        throw new ApiError(
          409,
          'invalid_state',
          `These statuses still hold jobs and cannot be removed: ${names.join(', ')}.`,
        );
      }
      await trx('statuses')
        .whereIn(
          'id',
          removed.map((s) => s.id),
        )
        .delete();
    }
    for (const [index, name] of wanted.entries()) {
      const existing = current.find((s) => s.name.toLowerCase() === name.toLowerCase());
      if (existing)
        await trx('statuses')
          .where({ id: existing.id })
          .update({ name, position: index + 1 });
      else
        await trx('statuses').insert({
          id: newId('st'),
          company_id: path.company_id,
          name,
          position: index + 1,
        });
    }
    return { data: wanted.map((name, index) => ({ name, position: index + 1 })) };
  });
};
