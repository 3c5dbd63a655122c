import type { ReadHandler } from '../tool';
import { decodeCursor, encodeCursor, SAFE_MAX } from '../../platform/pagination';
import { companyPricingRegion } from '../../domain/price-list/company-region';
import { regionFor, searchItems, toApiItem } from '../../domain/price-list/catalog';

const DEFAULT_LIMIT = 25;

export const search_price_list: ReadHandler<'search_price_list'> = async ({ db, caller }, { query }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const offset = query.cursor ? decodeCursor(query.cursor, { offset: SAFE_MAX }).offset : 0;
  const region = regionFor(query.region, await companyPricingRegion(db, caller.companyId));
  const matches = searchItems(query.q, query.category);
  const page = matches.slice(offset, offset + limit);
  return {
    data: page.map((item) => toApiItem(item, region)),
    next_cursor: offset + limit < matches.length ? encodeCursor({ offset: offset + limit }) : null,
  };
};
