/**
 * How standards passages are found and quoted. A passage scores the rarity of each word of the
 * question it holds (words few passages hold say more), three times over when the word is in its
 * heading or topics, and three times again for the subject nouns people ask about (the materials
 * of a drying log: drywall, carpet, insulation, …): "drying drywall after a category 2 loss" is
 * about drywall first. Excerpts are whole sentences: the one holding most of the question's
 * words, and the next when it is short.
 */
import type { Knex } from 'knex';
import { DEFAULT_DRY_GOALS } from '../drying/metrics';

const SUBJECTS = Object.keys(DEFAULT_DRY_GOALS).join(' ').replace(/_/g, ' ');
const SHORT_SENTENCE_WORDS = 25;

export interface PassageRow {
  id: string;
  heading: string;
  text: string;
  topics: string;
  source_title: string;
  publisher: string;
  section: string;
  url: string;
  score: number;
}

export async function findPassages(
  db: Knex,
  q: string,
  publisher: string | undefined,
  limit: number,
): Promise<PassageRow[]> {
  const { rows } = await db.raw(
    `with terms as (select distinct unnest(tsvector_to_array(to_tsvector('english', ?))) as lex),
          subjects as (select unnest(tsvector_to_array(to_tsvector('english', ?))) as lex),
          corpus as (select count(*)::float8 as n from standards_passages),
          stats as (select t.lex, quote_literal(t.lex)::tsquery as tq, exists (select 1 from subjects s where s.lex = t.lex) as subject,
                           (select count(*) from standards_passages p where p.document @@ quote_literal(t.lex)::tsquery) as df
                      from terms t)
     select p.id, p.heading, p.text, p.topics, p.source_title, p.publisher, p.section, p.url,
            sum(case when p.document @@ s.tq then ln((corpus.n + 1) / (s.df + 0.5))
                       * (case when to_tsvector('english', p.heading || ' ' || p.topics) @@ s.tq then 3 else 1 end)
                       * (case when s.subject then 3 else 1 end) else 0 end) as score
       from standards_passages p cross join stats s cross join corpus
      where (?::text is null or p.publisher = ?)
      group by p.id
     having bool_or(p.document @@ s.tq)
      order by score desc, p.id
      limit ?`,
    [q, SUBJECTS, publisher ?? null, publisher ?? null, limit],
  );
  return (rows as PassageRow[]).map((row) => ({ ...row, score: Number(row.score) }));
}

/** Each passage's excerpt: whole sentences, the question's words between `**`. */
export async function excerptsOf(db: Knex, q: string, passages: PassageRow[]): Promise<Map<string, string>> {
  const sentences = passages.flatMap((p) =>
    sentencesOf(p.text).map((text, index) => ({ id: p.id, index, text })),
  );
  if (sentences.length === 0) return new Map();
  const { rows } = await db.raw(
    `with query as (select replace(plainto_tsquery('english', ?)::text, '&', '|')::tsquery as tq,
                           tsvector_to_array(to_tsvector('english', ?)) as words)
     select s.id, s.index, ts_headline('english', s.text, query.tq, 'HighlightAll=true, StartSel=**, StopSel=**') as marked,
            (select count(distinct l) from unnest(tsvector_to_array(to_tsvector('english', s.text))) l where l = any(query.words)) as hits
       from jsonb_to_recordset(?::jsonb) as s(id text, index int, text text), query`,
    [q, q, JSON.stringify(sentences)],
  );
  const byPassage = new Map<string, { index: number; marked: string; hits: number }[]>();
  for (const row of rows as { id: string; index: number; marked: string; hits: string | number }[]) {
    byPassage.set(row.id, [
      ...(byPassage.get(row.id) ?? []),
      { index: row.index, marked: row.marked, hits: Number(row.hits) },
    ]);
  }
  const excerpts = new Map<string, string>();
  for (const [id, list] of byPassage) {
    list.sort((a, b) => a.index - b.index);
    const best = list.reduce((top, s) => (s.hits > top.hits ? s : top), list[0]);
    const next = list.find((s) => s.index === best.index + 1);
    const short = best.marked.split(/\s+/).length < SHORT_SENTENCE_WORDS;
    excerpts.set(id, short && next ? `${best.marked} ${next.marked}` : best.marked);
  }
  return excerpts;
}

/** Sentences end at `.`, `!` or `?` followed by a space and a capital, a digit or a quote. */
function sentencesOf(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z0-9"“(])/).filter((s) => s.trim());
}
