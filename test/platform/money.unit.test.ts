/**
 * Money and measures (src/platform/money.ts): integer cents and hundredths, division rounded
 * half up (never to even, never by floating point), prices read from what people type, and
 * amounts written as people read them.
 */
import fc from 'fast-check';
import {
  dollarsToCents,
  formatMoney,
  fromHundredths,
  percentOf,
  roundDiv,
  toHundredths,
} from '../../src/platform/money';

describe('roundDiv', () => {
  it.each([
    [5, 10, 1],
    [15, 10, 2],
    [25, 10, 3],
    [4, 10, 0],
    [14, 10, 1],
    [0, 7, 0],
    [2, 3, 1],
    [1, 3, 0],
    [126955, 10, 12696],
  ])('%d / %d is %d, half up', (numerator, denominator, quotient) => {
    expect(roundDiv(numerator, denominator)).toBe(quotient);
  });

  it('is the nearest whole number, halves up, for any non-negative integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 12 }), (n, d) => {
        const q = roundDiv(n, d);
        expect(Number.isInteger(q)).toBe(true);
        // |n − q·d| ≤ d/2, with a tie (n − q·d = −d/2) never chosen over rounding up.
        expect(2 * Math.abs(n - q * d)).toBeLessThanOrEqual(d);
        expect(2 * (n - q * d)).not.toBe(d);
      }),
    );
  });
});

describe('percentOf', () => {
  it('takes basis points of cents, half up', () => {
    expect(percentOf(126955, 1000)).toBe(12696); // 10% of $1,269.55 = $126.955
    expect(percentOf(152347, 625)).toBe(9522); // 6.25% = 9,521.6875
    expect(percentOf(10, 500)).toBe(1); // 5% of 10¢ = 0.5¢
    expect(percentOf(9, 500)).toBe(0); // 0.45¢
    expect(percentOf(123456, 0)).toBe(0);
    expect(percentOf(123456, 10000)).toBe(123456);
  });
});

describe('hundredths', () => {
  it.each([
    [12.5, 1250],
    [2.675, 268], // 267.49999999999997 in floating point
    [1.005, 101], // 100.49999999999999
    [4.35, 435], // 434.99999999999994
    [0.07, 7],
    [8.2, 820],
    [37.33, 3733],
    [0, 0],
    [1000000, 100000000],
  ])('reads %d as %d hundredths, half up as written', (value, hundredths) => {
    expect(toHundredths(value)).toBe(hundredths);
  });

  it('round-trip every two-decimal number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 11 }), (n) => {
        expect(toHundredths(fromHundredths(n))).toBe(n);
      }),
    );
  });
});

describe('dollarsToCents', () => {
  it.each([
    ['85.50', 8550],
    ['85.5', 8550],
    ['85', 8500],
    [' 12.30 ', 1230],
    ['0.07', 7],
    ['0', 0],
    [12.5, 1250],
    [2.675, 268],
    [0, 0],
  ])('reads %j as %d cents', (typed, cents) => {
    expect(dollarsToCents(typed)).toBe(cents);
  });

  it.each([
    ['12.345'],
    ['-1'],
    ['$12'],
    ['1,000'],
    ['1e3'],
    ['12.'],
    ['.5'],
    [''],
    ['twelve'],
    ['1234567890'],
    [-1],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
  ])('is null for %j, which is not a price', (typed) => {
    expect(dollarsToCents(typed)).toBeNull();
  });
});

describe('formatMoney', () => {
  it.each([
    [161869, 'USD', '$1,618.69'],
    [0, 'USD', '$0.00'],
    [5, 'USD', '$0.05'],
    [100, 'USD', '$1.00'],
    [-123456789, 'USD', '-$1,234,567.89'],
    [100000000, 'USD', '$1,000,000.00'],
    [Number.MAX_SAFE_INTEGER, 'USD', '$90,071,992,547,409.91'],
    [123456, 'CAD', 'CA$1,234.56'],
    [123456, 'EUR', '€1,234.56'],
  ])('writes %d ¢ in %s as %s', (cents, currency, text) => {
    expect(formatMoney(cents, currency)).toBe(text);
  });

  it('writes the code itself for a currency Intl cannot name', () => {
    expect(formatMoney(100, 'US')).toBe('US 1.00');
  });
});
