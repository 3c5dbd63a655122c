import type { ReadHandler } from '../tool';
import { companyPricingRegion } from '../../domain/price-list/company-region';
import { findItem, nearMatches, regionFor, toApiItem } from '../../domain/price-list/catalog';

export const get_price_list_item: ReadHandler<'get_price_list_item'> = async ({ db, caller }, { query }) => {
  const region = regionFor(query.region, await companyPricingRegion(db, caller.companyId));
  const codes = [
    ...new Set(
      query.codes
        .flatMap((entry) => entry.split(','))
        .map((code) => code.trim())
        .filter(Boolean),
    ),
  ];
  const found = codes.map((code) => ({ code, item: findItem(code) }));
  return {
    items: found.filter((f) => f.item).map((f) => toApiItem(f.item!, region)),
    not_found: found.filter((f) => !f.item).map((f) => ({ code: f.code, near_matches: nearMatches(f.code) })),
  };
};
