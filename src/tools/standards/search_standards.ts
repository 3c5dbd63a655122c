import type { ReadHandler } from '../../platform/handler';

const DEFAULT_LIMIT = 5;
const HEADLINE = 'StartSel=**, StopSel=**, MinWords=12, MaxWords=40, MaxFragments=2, FragmentDelimiter=" … "';

interface PassageRow {
  id: string;
  heading: string;
  excerpt: string;
  source_title: string;
  publisher: string;
  section: string;
  url: string;
  rank: number;
}

/**
 * Passages holding every word of `q` (PostgreSQL full text, English stemming), best first; when
 * none holds them all, passages holding any of them, so that a longer question still finds help.
 */
export const search_standards: ReadHandler<'search_standards'> = async ({ db }, { query }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const search = (tsquery: string) =>
    db.raw(
      `select p.id, p.heading, p.source_title, p.publisher, p.section, p.url,
              ts_rank_cd(p.document, q.query) as rank,
              ts_headline('english', p.text, replace(q.query::text, '&', '|')::tsquery, ?) as excerpt
         from standards_passages p, (select ${tsquery} as query) q
        where p.document @@ q.query
        order by rank desc, p.id
        limit ?`,
      [HEADLINE, query.q, limit],
    );
  let { rows } = await search(`websearch_to_tsquery('english', ?)`);
  if (rows.length === 0) ({ rows } = await search(`replace(plainto_tsquery('english', ?)::text, '&', '|')::tsquery`));
  return {
    data: (rows as PassageRow[]).map((row) => ({
      id: row.id,
      heading: row.heading,
      excerpt: row.excerpt,
      source: { title: row.source_title, publisher: row.publisher, section: row.section, url: row.url },
      rank: Number(row.rank),
    })),
    next_cursor: null,
  };
};
