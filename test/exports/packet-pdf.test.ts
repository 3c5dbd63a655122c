/**
 * The PDF packet laid out in the packet pool's worker threads from a hand-made PacketData (the
 * answers of get_job, get_estimate and get_drying_log, and photos with pictures made here):
 * streamed to a file, then read back with poppler (pdftotext, pdfinfo) for its figures, its
 * page count and its running footer. Its pages are rendered to test/artifacts/ to be looked at.
 * Also: a failure is the stream's error, and a reader that goes away stops the work.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { components } from '../../sdk/src/schema';
import type { PacketData, PacketPhoto } from '../../src/domain/exports/packet-data';
import { PacketPool } from '../../src/domain/exports/packet-pool';

type Schemas = components['schemas'];
type Line = Schemas['Line'];
type Air = Schemas['AirCondition'];
type Reading = Schemas['DryingReading'];

const run = promisify(execFile);
const ARTIFACTS = path.join(__dirname, '..', 'artifacts');
const person = { id: 'per_7Hq2LmR4TxYc', name: 'Maria Lopez' };
/** A technician with no key: the hall's readings are his, entered by Maria. */
const marco = { id: 'per_marco', name: 'Marco Diaz' };
const at = '2026-11-18T15:04:05Z';

function line(
  id: string,
  room: string | null,
  code: string | null,
  description: string,
  quantity: number,
  unit: string,
  priceCents: number,
  totalCents: number,
  extra: Partial<Line> = {},
): Line {
  return {
    id,
    room_id: room,
    source: code ? 'catalog' : 'own',
    code,
    description,
    unit,
    category: null,
    per_day: false,
    units_per_day: null,
    quantity,
    unit_price_cents: priceCents,
    total_cents: totalCents,
    note: null,
    ...extra,
  };
}

function room(
  id: string,
  name: string,
  lines: Line[],
  subtotal: number,
  size: [number, number, number] | null,
): Schemas['Room'] {
  const [length, width, height] = size ?? [null, null, null];
  const floor = length !== null && width !== null ? length * width : null;
  return {
    id,
    name,
    length,
    width,
    height,
    demo_days: 1,
    drying_days: 4,
    floor_area_sf: floor,
    wall_area_sf: null,
    perimeter_lf: null,
    volume_cf: null,
    subtotal_cents: subtotal,
    lines,
  };
}

/** Figures as get_estimate gives them (integers of cents, totals by its rounding rules). */
function estimate(): Schemas['Estimate'] {
  const kitchen = [
    line('lin_1', 'rom_k', 'WTR-EXT', 'Water extraction from carpeted floor', 120, 'SF', 95, 11400),
    line('lin_2', 'rom_k', 'DRY-TO', 'Tear out wet drywall, cleanup, bag for disposal', 64, 'SF', 152, 9728),
    line('lin_3', 'rom_k', 'DEHU-L', 'Dehumidifier (per 24 hour period), large', 4, 'DAY', 7000, 28000, {
      per_day: true,
      units_per_day: 1,
    }),
    line('lin_4', 'rom_k', 'AIRM', 'Air mover (per 24 hour period)', 12, 'DAY', 2800, 33600, {
      per_day: true,
      units_per_day: 3,
      note: 'Three movers along the north wall',
    }),
  ];
  const hall = [
    line('lin_5', 'rom_h', 'WTR-EXT', 'Water extraction from hard surface floor', 45.5, 'SF', 95, 4323),
    line('lin_6', 'rom_h', 'ANTIMCRB', 'Apply antimicrobial agent', 45.5, 'SF', 38, 1729),
  ];
  const other = [
    line('lin_7', null, null, 'Equipment decontamination', 1, 'EA', 15000, 15000, {
      note: 'Per carrier guidelines',
    }),
  ];
  return {
    id: 'est_4Tq8KmR2xA9b',
    job: { id: 'job_9Xk2mQ4rT7vB', job_number: 16 },
    label: 'Water mitigation',
    scope_summary: 'Extraction, controlled demolition and structural drying of the kitchen and hall.',
    status: 'final',
    finalized_at: '2026-11-25T16:00:00Z',
    drying_days: 4,
    region: { code: 'IL', factor: 1.08 },
    rates: { overhead_pct: 10, profit_pct: 10, tax_pct: 6.25 },
    rooms: [
      room('rom_k', 'Kitchen', kitchen, 82728, [12, 10, 8]),
      room('rom_h', 'Hall', hall, 6052, [13, 3.5, 8]),
    ],
    room_subtotals_exclude: ['overhead', 'profit', 'tax'],
    unassigned_lines: other,
    totals: {
      subtotal_cents: 103780,
      overhead_cents: 10378,
      profit_cents: 10378,
      tax_cents: 7784,
      total_cents: 132320,
      currency: 'USD',
    },
    created_at: at,
    created_by: person,
    updated_at: at,
  };
}

const air = (
  area: string | null,
  day: number,
  location: Air['location'],
  temp: number,
  rh: number,
  gpp: number,
  dew: number,
): Air => ({
  area,
  day,
  location,
  temp_f: temp,
  rh_pct: rh,
  gpp,
  dew_point_f: dew,
  vapor_pressure_inhg: 0.5,
});

function material(
  area: string,
  day: number,
  metric: Reading['metric'],
  point: string,
  value: number,
  reference = false,
): Reading {
  const goal = reference ? null : { value: 16, source: 'area_reference' as const, at_or_below: value <= 16 };
  return {
    id: `rdg_${area}${day}${metric}${reference}`,
    area,
    day,
    location: reference ? 'unaffected' : 'affected',
    metric,
    value,
    point,
    reference,
    source_of_values: 'dictated_by_user',
    meter: null,
    unit_id: null,
    on_skipped_day: false,
    goal,
    recorded_by: person,
    on_site_by: area === 'Hall' ? marco : null,
    recorded_at: at,
  };
}

/** Kitchen dries on day 4; the hall is still wet, with a dehumidifier and day 3 skipped there. */
function dryingLog(): Schemas['DryingLog'] {
  const kitchenAir = [
    [75, 68, 92.6, 63.6],
    [76, 60, 84.1, 61.2],
    [74, 52, 67.4, 55.2],
    [73, 45, 56.0, 50.6],
    [72, 41, 49.2, 47.1],
  ];
  const hallAir = [
    [74, 70, 91.3, 63.5],
    [75, 63, 85.7, 61.6],
    null,
    [73, 50, 61.8, 53.3],
    [72, 46, 55.1, 50.3],
  ];
  const conditions: Air[] = [
    ...kitchenAir.map(([t, rh, gpp, dew], i) => air('Kitchen', i + 1, 'affected', t, rh, gpp, dew)),
    ...hallAir.flatMap((v, i) =>
      v
        ? [
            air('Hall', i + 1, 'affected', v[0], v[1], v[2], v[3]),
            air('Hall', i + 1, 'dehumidifier_exhaust', 95, 18, v[2] - 40.5, 45),
          ]
        : [],
    ),
    // The building's air, read with no area: outside (a wet week) and an unaffected bedroom.
    ...[
      [48, 88, 40.3, 44.7],
      [52, 90, 48.3, 49.2],
      [50, 95, 47.4, 48.7],
      [46, 80, 34.0, 40.3],
      [44, 75, 29.1, 36.8],
    ].map(([t, rh, gpp, dew], i) => air(null, i + 1, 'outside', t, rh, gpp, dew)),
    ...[1, 3, 5].map((day) => air(null, day, 'unaffected', 71, 40, 45.6, 45.9)),
  ];
  const readings = [
    ...[38, 29, 21, 16, 14].map((v, i) => material('Kitchen', i + 1, 'drywall', 'north wall 2 ft', v)),
    ...[28, 24, 19, 15, 13].map((v, i) => material('Kitchen', i + 1, 'wood', 'base cabinet', v)),
    material('Hall', 1, 'subfloor', 'center', 12, true),
    ...[30, 27, null, 22, 20].flatMap((v, i) =>
      v === null ? [] : [material('Hall', i + 1, 'subfloor', 'center', v)],
    ),
  ];
  const days = [18, 19, 20, 21, 22].map((d, i) => ({
    day: i + 1,
    date: `2026-11-${d}`,
    read_areas: i === 2 ? ['Kitchen'] : ['Kitchen', 'Hall'],
    monitored: true,
    skipped_areas: i === 2 ? ['Hall'] : [],
    skip_reasons: i === 2 ? [{ area: 'Hall', reason: 'No access to the hall' }] : [],
    readings: 6,
  }));
  const area = (
    id: string,
    name: string,
    dry: boolean,
    dryDay: number | null,
    materials: Schemas['MaterialStatus'][],
  ): Schemas['DryingArea'] => ({
    id,
    name,
    planned_days: 4,
    own_planned_days: null,
    dry,
    dry_day: dryDay,
    latest_day: 5,
    air: null,
    exhaust: null,
    grain_depression: null,
    materials,
  });
  return {
    id: 'dry_5Tq8KmR2xA9b',
    job: { id: 'job_9Xk2mQ4rT7vB', job_number: 16 },
    start_date: '2026-11-18',
    planned_days: 4,
    end_date: '2026-11-21',
    today_day: 8,
    elevation_ft: 600,
    elevation_source: 'company',
    pressure_inhg: 29.28,
    estimate_id: 'est_4Tq8KmR2xA9b',
    areas: [
      // The kitchen was planned for one day (printed "1 day", never "1 days").
      {
        ...area('dra_k', 'Kitchen', true, 4, [
          {
            area: 'Kitchen',
            day: 5,
            metric: 'drywall',
            point: 'north wall 2 ft',
            value: 14,
            goal: 17,
            goal_source: 'default',
            reference: null,
            dry: true,
          },
          {
            area: 'Kitchen',
            day: 5,
            metric: 'wood',
            point: 'base cabinet',
            value: 13,
            goal: 15,
            goal_source: 'default',
            reference: null,
            dry: true,
          },
        ]),
        planned_days: 1,
      },
      area('dra_h', 'Hall', false, null, [
        {
          area: 'Hall',
          day: 5,
          metric: 'subfloor',
          point: 'center',
          value: 20,
          goal: 12,
          goal_source: 'area_reference',
          reference: { area: 'Hall', day: 1, point: 'bedroom closet', meter: 'Delmhorst J-2000' },
          dry: false,
        },
      ]),
    ],
    building: { outside: null, unaffected: null },
    days,
    wet_areas: ['Hall'],
    warnings: [],
    // Written out of order: the packet prints them by day, those about no day last.
    notes: [
      {
        id: 'dnote_2',
        text: 'Cabinet toe kick removed to dry the void.',
        area: 'Kitchen',
        day: 2,
        created_by: person,
        on_site_by: marco,
        created_at: at,
      },
      {
        id: 'dnote_3',
        text: 'Adjuster approved drying through day 5.',
        area: null,
        day: null,
        created_by: person,
        on_site_by: null,
        created_at: at,
      },
      {
        id: 'dnote_1',
        text: 'Owner asked to keep the hall door shut.',
        area: null,
        day: 1,
        created_by: person,
        on_site_by: null,
        created_at: at,
      },
    ],
    reading_count: readings.length,
    equipment: {
      units: [
        {
          id: 'eqp_1',
          kind: 'dehumidifier',
          dehumidifier_type: 'lgr',
          pints_per_day: 110,
          asset_tag: 'DH-07',
          area: 'Hall',
          placed_on: '2026-11-18',
          removed_on: null,
          days_on_site: 5,
          entered_by: marco,
          placed_on_site_by: marco,
          removed_on_site_by: null,
        },
        {
          id: 'eqp_2',
          kind: 'air_mover',
          dehumidifier_type: null,
          pints_per_day: null,
          asset_tag: null,
          area: 'Kitchen',
          placed_on: '2026-11-18',
          removed_on: '2026-11-21',
          days_on_site: 3,
          entered_by: marco,
          placed_on_site_by: null,
          removed_on_site_by: null,
        },
        // With the kitchen's, two air movers were on site on day 1; none is now.
        {
          id: 'eqp_3',
          kind: 'air_mover',
          dehumidifier_type: null,
          pints_per_day: null,
          asset_tag: null,
          area: 'Hall',
          placed_on: '2026-11-18',
          removed_on: '2026-11-20',
          days_on_site: 2,
          entered_by: marco,
          placed_on_site_by: null,
          removed_on_site_by: null,
        },
      ],
      on_site: 1,
      equipment_days: 10,
      by_area: [
        { area: 'Kitchen', on_site: 0, equipment_days: 3 },
        { area: 'Hall', on_site: 1, equipment_days: 7 },
      ],
    },
    chambers: [
      {
        id: 'chb_1',
        name: 'Main floor',
        category: 2,
        category_reviewed_on: '2026-11-19',
        class: 2,
        class_source: 'computed',
        wet_share_pct: 22.3,
        cubic_ft: 1280,
        note: null,
        areas: [
          {
            name: 'Kitchen',
            wet_floor_sqft: 120,
            wet_wall_sqft: 40,
            wet_wall_height_ft: null,
            wet_wall_total_sqft: null,
            wet_ceiling_sqft: null,
            wall_offsets: null,
            size_known: true,
            wet_wall_counted: { sqft: 40, above_2ft_sqft: 40 },
          },
          {
            name: 'Hall',
            wet_floor_sqft: 40,
            wet_wall_sqft: null,
            wet_wall_height_ft: null,
            wet_wall_total_sqft: null,
            wet_ceiling_sqft: null,
            wall_offsets: null,
            size_known: true,
            wet_wall_counted: { sqft: 0, above_2ft_sqft: 0 },
          },
        ],
        plan: { air_movers: { min: 6, max: 7 }, dehumidifier_pints: { lgr: 26, conventional: 32 } },
        placed: { air_movers: 0, dehumidifier_pints: 110 },
        air_movers_vs_plan: 'under',
        dehumidification_vs_plan: 'within',
        flags: ['Main floor: 0 air movers on site; the S500 plan calls for 6–7.'],
      },
    ],
    chamber_air: [
      {
        chamber: 'Main floor',
        areas: [
          air('Kitchen', 5, 'affected', 72, 41, 49.2, 47.1),
          air('Hall', 5, 'affected', 72, 46, 55.1, 50.3),
        ],
        unaffected: air(null, 5, 'unaffected', 71, 40, 45.6, 45.9),
        outside: air(null, 5, 'outside', 44, 75, 29.1, 36.8),
      },
    ],
    unit_grain_depression: [],
    billing: [],
    readings,
    conditions,
    grain_depression: hallAir.flatMap((v, i) => (v ? [{ area: 'Hall', day: i + 1, value: 40.5 }] : [])),
  };
}

function job(): Schemas['JobDetail'] {
  return {
    id: 'job_9Xk2mQ4rT7vB',
    job_number: 16,
    title: 'Alvarez - water',
    customer_name: 'Rosa Alvarez',
    address: '412 Birch Lane, Springfield, IL 62704',
    status: 'Drying',
    cancellation: null,
    photo_count: 9,
    address_parts: { line1: '412 Birch Lane', city: 'Springfield', region: 'IL', postal_code: '62704' },
    loss_type: 'water',
    date_of_loss: '2026-11-17',
    cause_of_loss: 'Supply line burst under the kitchen sink',
    water_category: 2,
    claim: {
      claim_number: 'CLM-2026-88412',
      carrier: 'Prairie Mutual Insurance',
      policy_number: null,
      adjuster: 'Dana Whitfield',
    },
    referral_source: null,
    people: [
      {
        id: 'con_1',
        name: 'Rosa Alvarez',
        role: 'customer',
        phone: '(217) 555-0143',
        phone_normalized: '(217) 555-0143',
        email: null,
        address: null,
      },
      {
        id: 'con_2',
        name: 'Dana Whitfield',
        role: 'adjuster',
        phone: '(217) 555-0199',
        phone_normalized: '(217) 555-0199',
        email: 'dana@prairiemutual.example',
        address: null,
      },
    ],
    assignees: [person],
    recent_notes: [],
    estimates: [{ id: 'est_4Tq8KmR2xA9b', label: 'Water mitigation', total_cents: 132320, currency: 'USD' }],
    program_profile: null,
    forms: { sent: 0, opened: 0, signed: 0, declined: 0, voided: 0, expired: 0 },
    created_at: at,
    created_by: person,
    updated_at: at,
  };
}

/** Seven kitchen photos (one portrait, one whose file is gone) and two of the hall. */
async function photos(dir: string): Promise<PacketPhoto[]> {
  const hues = [
    '#8d6e63',
    '#4e79a7',
    '#59a14f',
    '#e15759',
    '#f28e2b',
    '#76b7b2',
    '#b07aa1',
    '#edc948',
    '#9c755f',
  ];
  const out: PacketPhoto[] = [];
  for (const [i, background] of hues.entries()) {
    const picture = path.join(dir, `${i}.jpg`);
    const [width, height] = i === 1 ? [1200, 1600] : [2048, 1536];
    // Coarse tinted noise: a picture that compresses about like a photo, so the PDF spans many chunks.
    const grain = await sharp({
      create: {
        width: 160,
        height: 120,
        channels: 3,
        background: '#000000',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png()
      .toBuffer();
    if (i !== 5)
      await sharp(grain).resize(width, height).tint(background).jpeg({ quality: 85 }).toFile(picture);
    out.push({
      room: i < 7 ? 'Kitchen' : 'Hall',
      caption:
        i === 0
          ? 'Water under sink'
          : i === 3
            ? null
            : `Moisture at the ${['north', 'east', 'south', 'west'][i % 4]} wall, reading ${20 + i}`,
      name: i === 3 ? 'IMG_2043.jpg' : null,
      taken: `Nov 18, 2026 ${i + 1}:0${i} PM`,
      time_is: i === 4 ? 'uploaded' : 'taken', // photo 4's file had no time taken
      uploaded_by: 'Maria Lopez',
      taken_by: i === 2 ? 'Marco Diaz' : null,
      picture,
    });
  }
  return out;
}

async function pdfText(file: string): Promise<string> {
  return (await run('pdftotext', ['-layout', file, '-'])).stdout;
}

async function pageCount(file: string): Promise<number> {
  return Number(/^Pages:\s+(\d+)/m.exec((await run('pdfinfo', [file])).stdout)?.[1]);
}

describe('PDF packet', () => {
  let pool: PacketPool;
  let dir: string;
  let data: PacketData;

  beforeAll(async () => {
    pool = new PacketPool(2);
    dir = await mkdtemp(path.join(os.tmpdir(), 'packet-test-'));
    data = {
      company: { name: 'Blue Creek Restoration', timezone: 'America/Chicago' },
      date: 'November 25, 2026',
      job: job(),
      estimate: estimate(),
      dryingLog: dryingLog(),
      photos: await photos(dir),
      signedForms: null,
    };
  });
  afterAll(async () => {
    await pool.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the cover, the estimate, the drying log and the photos, with the job and page on every page', async () => {
    const file = path.join(dir, 'packet.pdf');
    await pipeline(pool.build(data), createWriteStream(file));

    // Cover, estimate, one page per drying area, the equipment and drying notes, kitchen photos on
    // two pages and the hall's on one.
    expect(await pageCount(file)).toBe(8);
    // Many more chunks than the worker sends ahead of its reader (the last test relies on it).
    expect((await stat(file)).size).toBeGreaterThan(512 * 1024);
    const text = await pdfText(file);
    for (const expected of [
      'Blue Creek Restoration',
      'Rosa Alvarez',
      '(217) 555-0143',
      'CLM-2026-88412',
      'Prairie Mutual Insurance',
      'Dana Whitfield',
      'November 17, 2026',
      'November 25, 2026',
    ]) {
      expect(text).toContain(expected);
    }
    // Money exactly as get_estimate gives it.
    for (const expected of ['$1,323.20', '$1,037.80', '$827.28', '$60.52', '$77.84', '$43.23', '45.5 SF'])
      expect(text).toContain(expected);
    // The service's GPP and dew point, the day the kitchen read dry, the hall still wet and skipped.
    for (const expected of [
      '84.1',
      '61.2',
      'Read dry on day 4',
      'Still wet',
      'skipped',
      'Skipped: No access to the hall',
      'Dehumidifier · LGR · 110 pints a day · DH-07',
      'Equipment-days in all',
      'goal 12',
      'area reference',
      '20 wet (day 5)',
    ])
      expect(text).toContain(expected);
    for (const expected of [
      'Water under sink',
      'IMG_2043.jpg',
      'Picture not available',
      'uploaded by Maria Lopez',
      'Photos: Hall',
    ])
      expect(text).toContain(expected);
    // Who did it on site, beside who entered it: readings, equipment, photos.
    // The goal's reference: where it was read and with what.
    for (const expected of ['bedroom closet', 'Delmhorst J-2000']) expect(text).toContain(expected);
    // The chambers: category and class, plan against placed, and their air beside the building's.
    for (const expected of [
      'Drying chambers',
      'Category 2, class 2',
      '(22.3% wet)',
      'most on site',
      '6–7 / 2',
      '26 LGR / 110',
      'Kitchen: 49.2 GPP, dew 47.1 °F',
      'Outside: 29.1 GPP',
    ])
      expect(text).toContain(expected);
    for (const expected of [
      'Outside GPP',
      'Unaff. GPP',
      '40.3',
      '45.6',
      'Goal: unaffected air',
      'Outside air',
    ])
      expect(text).toContain(expected);
    for (const expected of [
      'Read on site by Maria Lopez, days 1–5',
      'Marco Diaz (entered by Maria Lopez), days 1–2, 4–5',
      'by Marco Diaz',
      'PM by Marco Diaz',
    ])
      expect(text).toContain(expected);
    // The drying notes by day, then those about no day; counts of one in the singular.
    const notes = [
      'Drying notes',
      'Day 1 · November 18, 2026',
      'Owner asked to keep the hall door shut.',
      'Day 2 · November 19, 2026',
      'Kitchen: Cabinet toe kick removed to dry the void.',
      'Marco Diaz on site (entered by Maria Lopez)',
      'No day given',
      'Adjuster approved drying through day 5.',
    ];
    const flat = text.replace(/\s+/g, ' ');
    const at = notes.map((note) => flat.indexOf(note));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(text).toMatch(/planned 1 day(?!s)/);
    expect(text).not.toMatch(/\b1 days\b/);
    // A photo whose time taken is unknown says when it was uploaded, not that it was taken then.
    expect(text).toContain('Taken Nov 18, 2026 1:00 PM');
    expect(text).toContain('Uploaded Nov 18, 2026 5:04 PM');
    expect(text).not.toContain('Taken Nov 18, 2026 5:04 PM');
    for (let page = 1; page <= 8; page++) expect(text).toContain(`Page ${page} of 8`);
    expect(text.match(/Job #16/g)?.length).toBeGreaterThanOrEqual(9);

    await mkdir(ARTIFACTS, { recursive: true });
    await run('pdftoppm', [
      '-png',
      '-r',
      '60',
      '-f',
      '1',
      '-l',
      '1',
      file,
      path.join(ARTIFACTS, 'packet-cover'),
    ]);
    await run('pdftoppm', ['-png', '-r', '60', file, path.join(ARTIFACTS, 'packet')]);
    expect((await readdir(ARTIFACTS)).filter((name) => /^packet-\d+\.png$/.test(name))).toHaveLength(8);
  });

  it('leaves out what it was not given', async () => {
    const file = path.join(dir, 'bare.pdf');
    await pipeline(
      pool.build({ ...data, estimate: null, dryingLog: null, photos: null }),
      createWriteStream(file),
    );
    expect(await pageCount(file)).toBe(1);
    const text = await pdfText(file);
    expect(text).toContain('Page 1 of 1');
    expect(text).not.toContain('Estimate');
  });

  it("makes a failure to lay the packet out the stream's error", async () => {
    const broken = { ...data, job: null } as unknown as PacketData;
    await expect(
      pipeline(pool.build(broken), createWriteStream(path.join(dir, 'broken.pdf'))),
    ).rejects.toThrow(/could not be made/);
  });

  it('stops when the reader goes away, and its thread takes the next packet', async () => {
    // One thread: a worker still waiting for its reader would never take the second packet.
    const single = new PacketPool(1);
    try {
      const stream = single.build(data);
      await new Promise<void>((resolve) => stream.once('data', () => resolve()));
      stream.destroy();
      const file = path.join(dir, 'again.pdf');
      await pipeline(single.build({ ...data, photos: data.photos!.slice(7) }), createWriteStream(file));
      expect(await pageCount(file)).toBe(6);
    } finally {
      await single.destroy();
    }
  });
});
