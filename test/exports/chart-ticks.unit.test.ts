/**
 * The packet's GPP chart (src/domain/exports/packet-document.ts): the y axis's ticks are about
 * five round steps (1, 2 or 5 × 10ⁿ) that cover every value, the x axis labels round days, and a
 * calendar date is written without a timezone.
 */
import fc from 'fast-check';
import { calendarDate, gppChart, niceTicks } from '../../src/domain/exports/packet-document';

const isRoundStep = (step: number): boolean => {
  const magnitude = 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5, 10].some((f) => Math.abs(step - f * magnitude) < magnitude * 1e-9);
};

describe('niceTicks', () => {
  it.each([
    [0, 100, [0, 20, 40, 60, 80, 100]],
    [31.4, 58.2, [30, 40, 50, 60]],
    [12.3, 14.9, [12, 13, 14, 15]],
    [-12, 8, [-15, -10, -5, 0, 5, 10]],
    [0.1, 0.7, [0, 0.2, 0.4, 0.6, 0.8]],
    [450, 1020, [400, 600, 800, 1000, 1200]],
  ])('covers %d to %d with round steps: %j', (min, max, ticks) => {
    expect(niceTicks(min, max)).toEqual(ticks);
  });

  // 50.2 − 50.1 is 0.10000000000000142 in floating point: its fifth is a hair over 0.02, which
  // once made the step jump to 0.05 and gave three ticks.
  it('gives about five ticks to values 0.1 apart, as to values 0.2 apart (floating point error in the step)', () => {
    expect(niceTicks(50.1, 50.2).length).toBeGreaterThanOrEqual(4);
  });

  it('spreads one value over ten either side', () => {
    expect(niceTicks(50, 50)).toEqual([44, 46, 48, 50, 52, 54, 56]);
    expect(niceTicks(0, 0)).toEqual([-6, -4, -2, 0, 2, 4, 6]);
    // When the spread's ends fall on a step, six ticks cover it (fast-check found 1 GPP).
    expect(niceTicks(1, 1)).toEqual([-4, -2, 0, 2, 4, 6]);
  });

  // The step is the first round step at least a fifth of the range: 4 to 7 ticks.
  it('for any GPP values: 4 to 7 evenly spaced round ticks from at or below the least to at or above the most', () => {
    const gpp = fc.integer({ min: 0, max: 10_000 }).map((tenths) => tenths / 10);
    fc.assert(
      fc.property(gpp, gpp, (a, b) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        const ticks = niceTicks(min, max);
        expect(ticks.length).toBeGreaterThanOrEqual(min === max ? 6 : 4);
        expect(ticks.length).toBeLessThanOrEqual(7);
        expect(ticks[0]).toBeLessThanOrEqual(min);
        expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
        const step = ticks[1] - ticks[0];
        expect(isRoundStep(step)).toBe(true);
        for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBeCloseTo(step, 9);
        // Printed as they are: no 0.30000000000000004 on the axis.
        for (const tick of ticks) expect(String(tick)).toMatch(/^-?\d+(\.\d{1,6})?$/);
      }),
    );
  });
});

describe('gppChart', () => {
  const series = [
    {
      label: 'Kitchen',
      color: '#1a73e8',
      points: [
        { day: 1, value: 82.4 },
        { day: 2, value: 61.3 },
        { day: 3, value: 44.9 },
      ],
    },
  ];
  const labels = (svg: string): string[] => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

  it('labels the y axis with the ticks of the values and the x axis with the days', () => {
    const svg = gppChart(series, 1, 3, []);
    expect(svg.startsWith('<svg ')).toBe(true);
    const text = labels(svg);
    for (const tick of niceTicks(44.9, 82.4)) expect(text).toContain(String(tick));
    expect(text).toEqual(expect.arrayContaining(['GPP', 'Day', '1', '2', '3', 'Kitchen']));
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(text).not.toContain('Skipped day');
  });

  it('labels only round days on a long log, and bands the skipped days shown', () => {
    const svg = gppChart(series, 1, 30, [2, 40]);
    const days = labels(svg).filter(
      (t) => /^\d+$/.test(t) && Number(t) <= 30 && !niceTicks(44.9, 82.4).includes(Number(t)),
    );
    expect(days.every((d) => Number(d) % 2 === 0)).toBe(true);
    expect(svg.match(/<rect [^>]*fill="#eceff1"\/>/g)).toHaveLength(2); // day 2's band and the legend's
    expect(labels(svg)).toContain('Skipped day');
  });

  it('draws an empty chart when nothing was read', () => {
    const svg = gppChart([], 1, 3, []);
    expect(labels(svg)).toEqual(expect.arrayContaining(['0', '100']));
    expect(svg).not.toContain('<polyline');
  });
});

describe('calendarDate', () => {
  it('writes a calendar day in words, long or short, with no timezone to shift it', () => {
    expect(calendarDate('2026-11-18', 'long')).toBe('November 18, 2026');
    expect(calendarDate('2026-01-01', 'short')).toBe('Jan 1');
    expect(calendarDate('2024-02-29', 'long')).toBe('February 29, 2024');
    expect(calendarDate('2026-12-31', 'short')).toBe('Dec 31');
  });
});
