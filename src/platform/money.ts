/**
 * Exact arithmetic for money and measures: money is integer cents, quantities and feet are
 * integer hundredths, and every division rounds half up, once, where the spec says it does.
 */

/** numerator / denominator rounded half up, for non-negative integers. */
export function roundDiv(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

/** A decimal number from JSON (12.5, 2.675) as integer hundredths, half up. */
export function toHundredths(value: number): number {
  return Math.round(Number.parseFloat((value * 100).toPrecision(15)));
}

export function fromHundredths(value: number): number {
  return value / 100;
}

/** A price in dollars (`12.5` or `"12.50"`) as cents; null when it is not a price. */
export function dollarsToCents(value: number | string): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? toHundredths(value) : null;
  const match = /^\s*(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(value);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/** `rate_bp` basis points of an amount of cents, half up (1000 bp = 10 %). */
export function percentOf(cents: number, rateBp: number): number {
  return roundDiv(cents * rateBp, 10000);
}

/** `$1,234.56` from integer cents, by integer arithmetic only (no float rounding ever). */
export function formatMoney(cents: number, currency: string): string {
  const abs = Math.abs(cents);
  const units = String((abs - (abs % 100)) / 100).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${cents < 0 ? '-' : ''}${currencySymbol(currency)}${units}.${String(abs % 100).padStart(2, '0')}`;
}

const symbols = new Map<string, string>();

/** `$` for USD, `CA$` for CAD…; the code itself for one Intl does not know. */
function currencySymbol(currency: string): string {
  let symbol = symbols.get(currency);
  if (symbol === undefined) {
    try {
      const parts = new Intl.NumberFormat('en-US', { style: 'currency', currency }).formatToParts(0);
      symbol = parts.find((part) => part.type === 'currency')?.value ?? `${currency} `;
    } catch {
      symbol = `${currency} `;
    }
    symbols.set(currency, symbol);
  }
  return symbol;
}
