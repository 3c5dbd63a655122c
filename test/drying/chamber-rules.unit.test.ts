/**
 * src/domain/drying/chamber-rules.ts: what set_drying_chambers refuses before anything is saved —
 * a chamber named twice (any case), an area in two chambers, a category reviewed after today, wet
 * wall figures that contradict each other or the room — and chambers.ts' wet wall as counted.
 */
import { ApiError } from '../../src/platform/errors';
import {
  checkChamberNames,
  refuseContradictoryWalls,
  refuseLaterReviews,
  type AreaRoom,
  type ChamberInput,
} from '../../src/domain/drying/chamber-rules';
import { wetWallOf, type ChamberAreaRow } from '../../src/domain/drying/chambers';

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

/** A 25 × 14 × 8 ft room (perimeter 78 ft, walls 624 sq ft), or one of unknown size. */
const LIVING: AreaRoom = { name: 'Living', length_x100: 2500, width_x100: 1400, height_x100: 800 };
const UNSIZED: AreaRoom = { name: 'Porch', length_x100: null, width_x100: null, height_x100: null };
const area = (room: AreaRoom, wall: Partial<ChamberAreaRow>): ChamberAreaRow => ({
  id: 'dra_1',
  chamber_id: 'chb_1',
  wet_floor_sqft: null,
  wet_wall_sqft: null,
  wet_wall_height_x100: null,
  wet_wall_total_sqft: null,
  wet_ceiling_sqft: null,
  wall_offsets: null,
  note_dates: [],
  ...room,
  ...wall,
});

describe('wetWallOf', () => {
  it('counts a height around the perimeter (no higher than the room), a total less a 2 ft band, and wet_wall_sqft alone as before', () => {
    expect(wetWallOf(area(LIVING, { wet_wall_height_x100: 400 }))).toEqual({
      sqft: 312,
      above_2ft_sqft: 156,
    });
    expect(wetWallOf(area(LIVING, { wet_wall_height_x100: 1000 }))).toEqual({
      sqft: 624,
      above_2ft_sqft: 468,
    });
    expect(wetWallOf(area(LIVING, { wet_wall_height_x100: 150 }))).toEqual({ sqft: 117, above_2ft_sqft: 0 });
    expect(wetWallOf(area(LIVING, { wet_wall_total_sqft: 312 }))).toEqual({ sqft: 312, above_2ft_sqft: 156 });
    expect(wetWallOf(area(LIVING, { wet_wall_total_sqft: 84, wet_wall_sqft: 56 }))).toEqual({
      sqft: 84,
      above_2ft_sqft: 56,
    });
    expect(wetWallOf(area(LIVING, { wet_wall_sqft: 156 }))).toEqual({ sqft: 156, above_2ft_sqft: 156 });
    expect(wetWallOf(area(LIVING, {}))).toEqual({ sqft: 0, above_2ft_sqft: 0 });
  });

  it('leaves unknown what needs a size the room does not have', () => {
    expect(wetWallOf(area(UNSIZED, { wet_wall_height_x100: 300 }))).toEqual({
      sqft: null,
      above_2ft_sqft: null,
    });
    expect(wetWallOf(area(UNSIZED, { wet_wall_total_sqft: 90 }))).toEqual({ sqft: 90, above_2ft_sqft: null });
    expect(wetWallOf(area(UNSIZED, { wet_wall_total_sqft: 90, wet_wall_sqft: 30 }))).toEqual({
      sqft: 90,
      above_2ft_sqft: 30,
    });
  });
});

describe('refuseContradictoryWalls', () => {
  const walls = (wall: Record<string, number>, room = LIVING) =>
    refusal(() =>
      refuseContradictoryWalls(
        [{ ...chamber('Main', []), areas: [{ name: room.name, ...wall }] }],
        () => room,
      ),
    );

  it('takes one way of giving the wall, within the room', () => {
    for (const wall of [
      { wet_wall_height_ft: 8 },
      { wet_wall_total_sqft: 624 },
      { wet_wall_total_sqft: 312, wet_wall_sqft: 156 },
      { wet_wall_sqft: 5000 },
    ])
      expect(() =>
        refuseContradictoryWalls(
          [{ ...chamber('Main', []), areas: [{ name: 'Living', ...wall }] }],
          () => LIVING,
        ),
      ).not.toThrow();
    // Without the room's size only figures that contradict each other are refused.
    expect(() =>
      refuseContradictoryWalls(
        [
          {
            ...chamber('Out', []),
            areas: [{ name: 'Porch', wet_wall_height_ft: 30, wet_wall_total_sqft: 5 }],
          },
        ],
        () => UNSIZED,
      ),
    ).toThrow(ApiError);
    expect(() =>
      refuseContradictoryWalls(
        [{ ...chamber('Out', []), areas: [{ name: 'Porch', wet_wall_height_ft: 30 }] }],
        () => UNSIZED,
      ),
    ).not.toThrow();
  });

  it('names each contradiction at its field, with 422 contradictory_values', () => {
    const paths = (error: ApiError) => [
      error.status,
      error.code,
      error.extra.errors?.map((e) => e.path.split('/').pop()),
    ];
    expect(paths(walls({ wet_wall_height_ft: 4, wet_wall_sqft: 1 }))).toEqual([
      422,
      'contradictory_values',
      ['wet_wall_height_ft'],
    ]);
    expect(paths(walls({ wet_wall_height_ft: 8.5 }))).toEqual([
      422,
      'contradictory_values',
      ['wet_wall_height_ft'],
    ]);
    expect(paths(walls({ wet_wall_total_sqft: 10, wet_wall_sqft: 11 }))).toEqual([
      422,
      'contradictory_values',
      ['wet_wall_sqft'],
    ]);
    expect(paths(walls({ wet_wall_total_sqft: 625 }))).toEqual([
      422,
      'contradictory_values',
      ['wet_wall_total_sqft'],
    ]);
    expect(paths(walls({ wet_wall_total_sqft: 257, wet_wall_sqft: 100 }))).toEqual([
      422,
      'contradictory_values',
      ['wet_wall_total_sqft'],
    ]);
    expect(paths(walls({ wet_wall_height_ft: 9, wet_wall_total_sqft: 700, wet_wall_sqft: 800 }))).toEqual([
      422,
      'contradictory_values',
      ['wet_wall_height_ft', 'wet_wall_height_ft', 'wet_wall_sqft', 'wet_wall_total_sqft'],
    ]);
  });
});
