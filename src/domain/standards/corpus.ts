/**
 * Loads the standards corpus shipped in ./passages.ts into its table, when the
 * corpus differs from what the database holds (compared by a hash of its content).
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { STANDARDS } from './passages';

const NAME = 'standards';

export async function syncStandards(db: Knex): Promise<void> {
  const version = createHash('sha256').update(JSON.stringify(STANDARDS)).digest('hex');
  const current = await db('reference_versions').where({ name: NAME }).first('version');
  if (current?.version === version) return;
  await db.transaction(async (trx) => {
    // Nodes starting together load it once: the second waits here, then finds it loaded.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [NAME]);
    const loaded = await trx('reference_versions').where({ name: NAME }).first('version');
    if (loaded?.version === version) return;
    await trx('standards_passages').delete();
    await trx('standards_passages').insert(
      STANDARDS.map((p) => ({
        id: p.id,
        heading: p.heading,
        text: p.text,
        topics: p.topics.join(', '),
        source_title: p.source.title,
        publisher: p.source.publisher,
        section: p.source.section,
        url: p.source.url,
      })),
    );
    await trx('reference_versions').insert({ name: NAME, version }).onConflict('name').merge();
  });
}
