/**
 * src/domain/drying/chamber-rules.ts: what set_drying_chambers refuses before anything is read —
 * a chamber named twice (any case), an area in two chambers, a category reviewed after today.
 */
import { ApiError } from '../../src/platform/errors';
import {
  checkChamberNames,
  refuseLaterReviews,
  type ChamberInput,
} from '../../src/domain/drying/chamber-rules';

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const chamber = (name: string, areas: string[], over: Partial<ChamberInput> = {}): ChamberInput =>
  ({ name, category: 2, areas: areas.map((area) => ({ name: area })), ...over }) as ChamberInput;

describe('checkChamberNames', () => {
  it('takes distinct chambers with distinct areas', () => {
    expect(() =>
      checkChamberNames([chamber('East', ['Kitchen']), chamber('West', ['Hall', 'Bath'])]),
    ).not.toThrow();
  });

  it('names a chamber given twice in any case, and an area put in a second chamber, each by its path', () => {
    const error = refusal(() =>
      checkChamberNames([
        chamber('East', ['Kitchen']),
        chamber(' east ', ['Hall']),
        chamber('West', [' kitchen', 'Bath']),
      ]),
    );
    expect(error.status).toBe(400);
    expect(error.extra.errors).toEqual([
      { path: '/body/chambers/1/name', message: 'names a chamber twice: east' },
      { path: '/body/chambers/2/areas/0/name', message: 'kitchen is already in East' },
    ]);
  });
});

describe('refuseLaterReviews', () => {
  it('takes reviews up to today and answers 422 naming each one after it', () => {
    const chambers = [
      chamber('East', ['Kitchen'], { category_reviewed_on: '2026-03-04' }),
      chamber('West', ['Hall']),
      chamber('North', ['Bath'], { category_reviewed_on: '2026-03-05' }),
    ];
    expect(() => refuseLaterReviews(chambers, '2026-03-05')).not.toThrow();
    const error = refusal(() => refuseLaterReviews(chambers, '2026-03-04'));
    expect([error.status, error.code]).toEqual([422, 'date_in_future']);
    expect(error.extra.errors).toEqual([
      { path: '/body/chambers/2/category_reviewed_on', message: 'is 2026-03-05, after today (2026-03-04)' },
    ]);
  });
});
