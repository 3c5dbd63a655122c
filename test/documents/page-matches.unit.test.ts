/**
 * src/domain/documents/page-matches.ts: read_document's search — the pages holding every word of
 * `q` in any case, each with at most three passages of 60 characters either side, without overlap.
 */
import { matchesOf } from '../../src/domain/documents/page-matches';
import type { PageText } from '../../src/domain/documents/document-text';

const page = (n: number, text: string): PageText => ({ page: n, source: 'text_layer', text });

describe('matchesOf', () => {
  it('keeps the pages holding every word, in any case, with the passages around them', () => {
    const pages = [
      page(1, 'Moisture in the KITCHEN drywall.'),
      page(2, 'Kitchen only.'),
      page(3, 'No match here.'),
    ];
    expect(matchesOf(pages, 'kitchen  Drywall')).toEqual([
      { page: 1, source: 'text_layer', excerpts: ['Moisture in the KITCHEN drywall.'] },
    ]);
  });

  it('cuts long text to passages marked with …, at most three a page, and reads words as text, not patterns', () => {
    const filler = 'x'.repeat(100);
    const text = [1, 2, 3, 4].map((i) => `${filler} a.b(${i}) ${filler}`).join(' ');
    const [match] = matchesOf([page(7, text)], 'a.b(');
    expect(match.excerpts).toHaveLength(3);
    for (const excerpt of match.excerpts) {
      expect(excerpt).toMatch(/^….*a\.b\(\d\).*…$/);
      expect(excerpt.length).toBeLessThanOrEqual(60 * 2 + 'a.b('.length + 2);
    }
    expect(matchesOf([page(7, text)], 'ab(')).toEqual([]);
  });
});
