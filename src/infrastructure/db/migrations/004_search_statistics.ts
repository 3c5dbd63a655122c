import type { Knex } from 'knex';

/**
 * find_jobs' plan for a word depends on how many jobs the planner thinks contain it: few, and it
 * reads the trigram index; many, and it walks the company's newest jobs until a page is full. With
 * the default sample (100 values) a name that 5% of jobs carry was guessed at anywhere from 2% to
 * 9%, so the same kind of search flipped between a 0.5 ms plan and a 3–8 ms one. A tenfold sample
 * of the search columns keeps the guess close.
 */
const SEARCH_COLUMNS = ['search_text', 'search_digits'];

export async function up(db: Knex): Promise<void> {
  for (const column of SEARCH_COLUMNS)
    await db.raw('ALTER TABLE jobs ALTER COLUMN ?? SET STATISTICS 1000', [column]);
}

export async function down(db: Knex): Promise<void> {
  for (const column of SEARCH_COLUMNS)
    await db.raw('ALTER TABLE jobs ALTER COLUMN ?? SET STATISTICS -1', [column]);
}
