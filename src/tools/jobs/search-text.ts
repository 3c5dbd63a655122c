/**
 * What `find_jobs` searches: a job's words (title, street, city, claim, carrier, adjuster, its
 * people's names and emails) lower-cased in `search_text`, and the digits of phones and claim
 * numbers in `search_digits`, both trigram-indexed.
 */
export interface SearchSource {
  title: string;
  address_line1?: string | null;
  city?: string | null;
  claim_number?: string | null;
  policy_number?: string | null;
  carrier?: string | null;
  adjuster?: string | null;
  people: { name: string; phone?: string | null; email?: string | null }[];
}

export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

export function searchColumns(source: SearchSource): { search_text: string; search_digits: string } {
  const words = [
    source.title,
    source.address_line1,
    source.city,
    source.claim_number,
    source.policy_number,
    source.carrier,
    source.adjuster,
    ...source.people.flatMap((p) => [p.name, p.email]),
  ];
  const numbers = [source.claim_number, source.policy_number, ...source.people.map((p) => p.phone)];
  return {
    search_text: words.filter(Boolean).join(' | ').toLowerCase(),
    search_digits: numbers.map((n) => digitsOf(n ?? '')).filter(Boolean).join(' '),
  };
}
