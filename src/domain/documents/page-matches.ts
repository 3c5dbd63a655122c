/**
 * What read_document answers for a search: the pages holding every word of `q` (any case), each
 * with a few short passages around the words. Pure functions of the pages' text.
 */
import type { PageText } from './document-text';

/** At most this many passages a page, each with this many characters either side of a word. */
const EXCERPTS = 3;
const EXCERPT_CONTEXT = 60;

/** The pages holding every word of `q` (any case), each with a few short passages around them. */
export function matchesOf(
  pages: PageText[],
  q: string,
): { page: number; source: PageText['source']; excerpts: string[] }[] {
  const words = [...new Set(q.toLowerCase().split(/\s+/).filter(Boolean))];
  return pages
    .filter((page) => {
      const text = page.text.toLowerCase();
      return words.every((word) => text.includes(word));
    })
    .map((page) => ({ page: page.page, source: page.source, excerpts: excerptsOf(page.text, words) }));
}

function excerptsOf(text: string, words: string[]): string[] {
  const lower = text.toLowerCase();
  const hits = words
    .flatMap((word) =>
      [...lower.matchAll(new RegExp(escapeRegExp(word), 'g'))].map((m) => ({
        at: m.index,
        end: m.index + word.length,
      })),
    )
    .sort((a, b) => a.at - b.at);
  const excerpts: string[] = [];
  let shownTo = -1;
  for (const hit of hits) {
    if (excerpts.length === EXCERPTS) break;
    if (hit.at < shownTo) continue;
    const start = Math.max(0, hit.at - EXCERPT_CONTEXT);
    shownTo = Math.min(text.length, hit.end + EXCERPT_CONTEXT);
    excerpts.push(
      `${start > 0 ? '…' : ''}${text.slice(start, shownTo).replace(/\s+/g, ' ').trim()}${shownTo < text.length ? '…' : ''}`,
    );
  }
  return excerpts;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
