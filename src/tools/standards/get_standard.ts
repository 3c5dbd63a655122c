import { notFound } from '../../platform/errors';
import type { ReadHandler } from '../tool';

export const get_standard: ReadHandler<'get_standard'> = async ({ db }, { path }) => {
  const row = await db('standards_passages').where({ id: path.passage_id }).first();
  if (!row) throw notFound('standards passage');
  return {
    id: row.id,
    heading: row.heading,
    text: row.text,
    topics: (row.topics as string).split(', ').filter(Boolean),
    source: { title: row.source_title, publisher: row.publisher, section: row.section, url: row.url },
  };
};
