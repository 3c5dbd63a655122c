/**
 * The price list shipped with the service (./price-list.ts), held in memory: lookup
 * by code, ranked search by words or code, near matches for unknown codes, regional prices.
 */
import { distance } from 'fastest-levenshtein';
import type { components } from '../../../sdk/src/schema';
import { PRICE_LIST, type PriceListItem } from './price-list';
import { DEFAULT_REGION_FACTOR, PRICING_REGIONS } from './pricing-regions';
import { roundDiv, toHundredths } from '../../platform/money';

export type ApiPriceListItem = components['schemas']['PriceListItem'];
export type NearMatch = components['schemas']['NearMatch'];
export type { PriceListItem };

export const CURRENCY = 'USD';
const MAX_NEAR_MATCHES = 5;

const byCode = new Map(PRICE_LIST.map((item) => [item.code, item]));
const compact = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');
const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
/** An item's words, with each pair of neighbours also written together (`air mover` is also `airmover`). */
const itemWords = new Map(
  PRICE_LIST.map((item) => [
    item.code,
    new Set([...wordsOf(item.description), ...joinedPairs(wordsOf(item.description)), ...wordsOf(item.code)]),
  ]),
);
const lowerDescriptions = new Map(
  PRICE_LIST.map((item) => [item.code, ` ${wordsOf(item.description).join(' ')} `]),
);

function joinedPairs(words: string[]): string[] {
  return words.slice(1).map((word, i) => `${words[i]}${word}`);
}

/** The item with exactly this code (any case), if the catalog has it. */
export function findItem(code: string): PriceListItem | undefined {
  return byCode.get(code.trim().toUpperCase());
}

/** Codes close in spelling (typos, a missing hyphen or space), then items sharing its words. */
export function nearMatches(code: string): NearMatch[] {
  const wanted = compact(code);
  const bySpelling = PRICE_LIST.map((item) => ({ item, d: distance(wanted, compact(item.code)) }))
    .filter(({ d }) => d <= Math.max(2, Math.floor(wanted.length / 4)))
    .sort((a, b) => a.d - b.d || a.item.code.localeCompare(b.item.code))
    .slice(0, MAX_NEAR_MATCHES)
    .map(({ item }) => ({ code: item.code, description: item.description, matched_by: 'spelling' as const }));
  const seen = new Set(bySpelling.map((m) => m.code));
  const words = wordsOf(code);
  const byWords = PRICE_LIST.filter((item) => !seen.has(item.code))
    .map((item) => ({ item, shared: words.filter((w) => itemWords.get(item.code)!.has(w)).length }))
    .filter(({ shared }) => shared > 0 && shared * 2 >= words.length)
    .sort((a, b) => b.shared - a.shared || a.item.code.localeCompare(b.item.code))
    .slice(0, MAX_NEAR_MATCHES - Math.min(bySpelling.length, 2))
    .map(({ item }) => ({ code: item.code, description: item.description, matched_by: 'words' as const }));
  return [...bySpelling, ...byWords].slice(0, MAX_NEAR_MATCHES);
}

/**
 * Items matching the words of `q` (or its code), best first: whole words, then prefixes, then the
 * code; an item whose description holds the words as one phrase comes first, earlier still when
 * it starts with it (`water extraction` before `clean carpet by hot water extraction`).
 */
export function searchItems(q: string, category?: string): PriceListItem[] {
  const words = wordsOf(q);
  const wantedCode = compact(q);
  const scored = PRICE_LIST.filter(
    (item) => !category || item.category.toLowerCase() === category.trim().toLowerCase(),
  )
    .map((item) => {
      if (compact(item.code) === wantedCode) return { item, score: 1000 };
      const own = itemWords.get(item.code)!;
      let score = 0;
      for (const word of words) {
        if (own.has(word)) score += 3;
        else if ([...own].some((w) => w.startsWith(word))) score += 2;
      }
      if (compact(item.code).includes(wantedCode) && wantedCode.length >= 3) score += 2;
      const phrase = ` ${words.join(' ')} `;
      if (words.length > 1 && lowerDescriptions.get(item.code)!.includes(phrase))
        score += lowerDescriptions.get(item.code)!.startsWith(phrase) ? 6 : 3;
      return { item, score: words.length > 0 && score >= words.length * 2 ? score + 1 : score };
    })
    .filter(({ score }) => score > 0);
  return scored
    .sort((a, b) => b.score - a.score || a.item.code.localeCompare(b.item.code))
    .map(({ item }) => item);
}

export interface AppliedRegion {
  code: string | null;
  factorX100: number;
}

/** The first of the candidates that names a pricing region (a state code or name); else national prices. */
export function regionFor(...candidates: (string | null | undefined)[]): AppliedRegion {
  for (const candidate of candidates) {
    const wanted = candidate?.trim().toLowerCase();
    if (!wanted) continue;
    const region = PRICING_REGIONS.find(
      (r) => r.code.toLowerCase() === wanted || r.name.toLowerCase() === wanted,
    );
    if (region) return { code: region.code, factorX100: toHundredths(region.factor) };
  }
  return { code: null, factorX100: toHundredths(DEFAULT_REGION_FACTOR) };
}

export function regionalPriceCents(item: PriceListItem, region: AppliedRegion): number {
  return roundDiv(item.base_price_cents * region.factorX100, 100);
}

export function toApiItem(item: PriceListItem, region: AppliedRegion): ApiPriceListItem {
  return {
    code: item.code,
    description: item.description,
    unit: item.unit,
    category: item.category,
    per_day: item.per_day,
    unit_price_cents: regionalPriceCents(item, region),
    currency: CURRENCY,
    region: { code: region.code, factor: region.factorX100 / 100 },
  };
}
