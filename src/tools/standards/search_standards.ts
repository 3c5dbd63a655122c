import type { ReadHandler } from '../tool';
import { excerptsOf, findPassages } from '../../domain/standards/passage-search';

const DEFAULT_LIMIT = 5;

export const search_standards: ReadHandler<'search_standards'> = async ({ db }, { query }) => {
  const passages = await findPassages(db, query.q, query.publisher, query.limit ?? DEFAULT_LIMIT);
  const excerpts = await excerptsOf(db, query.q, passages);
  return {
    data: passages.map((row) => ({
      id: row.id,
      heading: row.heading,
      excerpt: excerpts.get(row.id) ?? row.text,
      source: { title: row.source_title, publisher: row.publisher, section: row.section, url: row.url },
      rank: Math.round(row.score * 100) / 100,
    })),
    next_cursor: null,
  };
};
