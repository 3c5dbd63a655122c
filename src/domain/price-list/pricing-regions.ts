/**
 * Pricing regions of the price list, written for this project: one per US state plus the District
 * of Columbia, each with a factor applied to the national base price of every catalog line. The
 * factors follow the broad spread of restoration labor and material costs between states: highest
 * in Hawaii, Alaska, California, New York, Massachusetts and New Jersey, lowest in the rural South
 * and Appalachia. Two decimals; a job or company without a region gets DEFAULT_REGION_FACTOR.
 */
export interface PricingRegion {
  /** Two-letter USPS code of the state, or DC. */
  code: string;
  name: string;
  /** Multiplier of the national base price, two decimals. */
  factor: number;
}

export const DEFAULT_REGION_FACTOR = 1;

export const PRICING_REGIONS: readonly PricingRegion[] = [
  { code: 'AL', name: 'Alabama', factor: 0.87 },
  { code: 'AK', name: 'Alaska', factor: 1.27 },
  { code: 'AZ', name: 'Arizona', factor: 0.95 },
  { code: 'AR', name: 'Arkansas', factor: 0.86 },
  { code: 'CA', name: 'California', factor: 1.24 },
  { code: 'CO', name: 'Colorado', factor: 1.02 },
  { code: 'CT', name: 'Connecticut', factor: 1.14 },
  { code: 'DE', name: 'Delaware', factor: 1.03 },
  { code: 'DC', name: 'District of Columbia', factor: 1.17 },
  { code: 'FL', name: 'Florida', factor: 0.93 },
  { code: 'GA', name: 'Georgia', factor: 0.9 },
  { code: 'HI', name: 'Hawaii', factor: 1.3 },
  { code: 'ID', name: 'Idaho', factor: 0.93 },
  { code: 'IL', name: 'Illinois', factor: 1.08 },
  { code: 'IN', name: 'Indiana', factor: 0.95 },
  { code: 'IA', name: 'Iowa', factor: 0.94 },
  { code: 'KS', name: 'Kansas', factor: 0.92 },
  { code: 'KY', name: 'Kentucky', factor: 0.91 },
  { code: 'LA', name: 'Louisiana', factor: 0.89 },
  { code: 'ME', name: 'Maine', factor: 0.97 },
  { code: 'MD', name: 'Maryland', factor: 1.03 },
  { code: 'MA', name: 'Massachusetts', factor: 1.21 },
  { code: 'MI', name: 'Michigan', factor: 1.01 },
  { code: 'MN', name: 'Minnesota', factor: 1.07 },
  { code: 'MS', name: 'Mississippi', factor: 0.85 },
  { code: 'MO', name: 'Missouri', factor: 0.98 },
  { code: 'MT', name: 'Montana', factor: 0.95 },
  { code: 'NE', name: 'Nebraska', factor: 0.92 },
  { code: 'NV', name: 'Nevada', factor: 1.05 },
  { code: 'NH', name: 'New Hampshire', factor: 1.02 },
  { code: 'NJ', name: 'New Jersey', factor: 1.18 },
  { code: 'NM', name: 'New Mexico', factor: 0.91 },
  { code: 'NY', name: 'New York', factor: 1.22 },
  { code: 'NC', name: 'North Carolina', factor: 0.88 },
  { code: 'ND', name: 'North Dakota', factor: 0.94 },
  { code: 'OH', name: 'Ohio', factor: 0.98 },
  { code: 'OK', name: 'Oklahoma', factor: 0.88 },
  { code: 'OR', name: 'Oregon', factor: 1.06 },
  { code: 'PA', name: 'Pennsylvania', factor: 1.05 },
  { code: 'RI', name: 'Rhode Island', factor: 1.1 },
  { code: 'SC', name: 'South Carolina', factor: 0.87 },
  { code: 'SD', name: 'South Dakota', factor: 0.89 },
  { code: 'TN', name: 'Tennessee', factor: 0.89 },
  { code: 'TX', name: 'Texas', factor: 0.9 },
  { code: 'UT', name: 'Utah', factor: 0.95 },
  { code: 'VT', name: 'Vermont', factor: 0.99 },
  { code: 'VA', name: 'Virginia', factor: 0.97 },
  { code: 'WA', name: 'Washington', factor: 1.12 },
  { code: 'WV', name: 'West Virginia', factor: 0.88 },
  { code: 'WI', name: 'Wisconsin', factor: 1.02 },
  { code: 'WY', name: 'Wyoming', factor: 0.92 },
];
