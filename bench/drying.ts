/**
 * The drying log's cases: a whole month of readings for a job in one request (8 areas × 30 days ×
 * 5 readings = 1,200), one reading next to one note (what a technician sends most), and reading
 * back a full 30-day log (the same 20 logs over and over, as people and assistants look at a job's
 * log between visits: mostly its kept summary).
 */
import { randomUUID } from 'node:crypto';
import { jpegWith } from '../test/support/photo-files';
import type { HttpCase } from './measure';

const AREAS = ['Kitchen', 'Hall', 'Living room', 'Dining room', 'Bedroom 1', 'Bedroom 2', 'Bath', 'Laundry'];
const DAYS = 30;
/** Logs filled with a whole month before the cases, for reading back and for single readings. */
const FULL_LOGS = 20;
/** Day 1 of the bench's logs: their 30 days end before today in any timezone (no reading may be after today). */
export const START_DATE = new Date(Date.now() - (DAYS + 1) * 86_400_000).toISOString().slice(0, 10);

export const MONTH_IN_ONE_REQUEST = 'add_drying_readings, 1,200 readings';
export const ONE_READING = 'add_drying_readings, one reading';
export const ONE_NOTE = 'add_note (beside one reading)';
export const READ_FULL_LOG = 'get_drying_log of a 30-day log';
export const READINESS = 'check_claim_readiness (30-day, 8-area log with photos, a profile of 8 rules)';
/** Photos of the readiness case's job (the quick run, which judges nothing, sends fewer), spread over its rooms, sent this many to an upload. */
const READINESS_PHOTOS = { full: 300, quick: 50 };
const PHOTOS_AN_UPLOAD = 25;

/** A month of readings: each area each day, air, exhaust and two materials drying down. */
function month(): { rows: unknown[] } {
  const rows = AREAS.flatMap((area, a) =>
    Array.from({ length: DAYS }, (_, d) => ({
      day: d + 1,
      area,
      readings: [
        { metric: 'temp_f', value: 72 + (a % 3) },
        { metric: 'rh_pct', value: Math.max(30, 65 - d) },
        { metric: 'rh_pct', value: 28, location: 'dehumidifier_exhaust' },
        { metric: 'drywall', value: Math.max(11, 40 - 2 * d), point: 'north wall 2 ft' },
        { metric: 'wood', value: Math.max(12, 30 - d) },
      ],
    })),
  );
  return { rows };
}

async function post(base: string, key: string, path: string, body: unknown, method = 'POST'): Promise<void> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

/**
 * Starts a 30-day log with the 8 areas on each job, and fills the first FULL_LOGS with a month.
 * Returns the cases; the month case writes to the other logs, one job after another.
 */
export async function dryingCases(
  base: string,
  key: string,
  jobIds: string[],
  quick: boolean,
  adminToken: string,
): Promise<{ heavy: HttpCase; light: HttpCase[] }> {
  for (const jobId of jobIds) {
    await post(base, key, `/api/v1/jobs/${jobId}/drying-log`, {
      operation_id: randomUUID(),
      rooms: AREAS.map((name) => ({ name })),
      planned_days: DAYS,
      start_date: START_DATE,
    });
  }
  const full = jobIds.slice(0, FULL_LOGS);
  for (const jobId of full)
    await post(base, key, `/api/v1/jobs/${jobId}/drying-log/readings`, {
      operation_id: randomUUID(),
      ...month(),
    });
  await equipAndPhotograph(base, key, full[0], quick ? READINESS_PHOTOS.quick : READINESS_PHOTOS.full);
  await giveProgramProfile(base, key, adminToken, full[0]);

  const cycle = (list: string[]) => {
    let i = 0;
    return () => list[i++ % list.length];
  };
  const [monthJob, readingJob, noteJob, readJob] = [
    cycle(jobIds.slice(FULL_LOGS)),
    cycle(full),
    cycle(full),
    cycle(full),
  ];
  const body = month();
  return {
    heavy: {
      name: MONTH_IN_ONE_REQUEST,
      method: 'POST',
      next: () => ({
        path: `/api/v1/jobs/${monthJob()}/drying-log/readings`,
        body: { operation_id: randomUUID(), ...body },
      }),
    },
    light: [
      {
        name: ONE_READING,
        method: 'POST',
        next: () => ({
          path: `/api/v1/jobs/${readingJob()}/drying-log/readings`,
          body: {
            operation_id: randomUUID(),
            day: 12,
            area: 'Kitchen',
            readings: [{ metric: 'drywall', value: 14 }],
          },
        }),
      },
      {
        name: ONE_NOTE,
        method: 'POST',
        next: () => ({
          path: `/api/v1/jobs/${noteJob()}/notes`,
          body: { operation_id: randomUUID(), text: 'Moved two air movers to the hall.' },
        }),
      },
      { name: READ_FULL_LOG, next: () => ({ path: `/api/v1/jobs/${readJob()}/drying-log` }) },
      { name: READINESS, next: () => ({ path: `/api/v1/jobs/${full[0]}/claim-readiness` }) },
    ],
  };
}

/** The readiness case's job: equipment in every area, two chambers, and `photos` small photos over its rooms. */
async function equipAndPhotograph(base: string, key: string, jobId: string, photos: number): Promise<void> {
  for (const area of AREAS) {
    await post(base, key, `/api/v1/jobs/${jobId}/drying-log/equipment`, {
      operation_id: randomUUID(),
      area,
      date: START_DATE,
      units: [
        { kind: 'air_mover', count: 3 },
        { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 70 },
      ],
    });
  }
  const chambers = [AREAS.slice(0, 4), AREAS.slice(4)].map((areas, i) => ({
    name: `Chamber ${i + 1}`,
    category: 2,
    areas: areas.map((name) => ({ name, wet_floor_sqft: 80 })),
  }));
  await post(
    base,
    key,
    `/api/v1/jobs/${jobId}/drying-log/chambers`,
    { operation_id: randomUUID(), chambers },
    'PUT',
  );
  for (let sent = 0; sent < photos; sent += PHOTOS_AN_UPLOAD) {
    const form = new FormData();
    const photos = Array.from({ length: PHOTOS_AN_UPLOAD }, (_, i) => ({
      room: AREAS[(sent + i) % AREAS.length],
    }));
    form.append('meta', JSON.stringify({ operation_id: randomUUID(), photos }));
    for (let i = 0; i < PHOTOS_AN_UPLOAD; i++)
      form.append(
        'photo',
        new Blob([new Uint8Array(await jpegWith({ width: 64 + sent + i, height: 48 }))]),
        `p${sent + i}.jpg`,
      );
    const res = await fetch(`${base}/api/v1/jobs/${jobId}/photos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    if (res.status !== 201) throw new Error(`photos: ${res.status} ${await res.text()}`);
  }
}

/** Every kind of program rule (8 rules, one kind twice), as a carrier's program would ask. */
const PROGRAM_RULES = [
  { kind: 'photos_per_room', min_photos: 4 },
  { kind: 'equipment_photographed' },
  { kind: 'before_and_after_photos' },
  { kind: 'daily_atmospherics', severity: 'high' },
  { kind: 'moisture_point_per_material' },
  { kind: 'note_for_line_codes', codes: ['CLN-ANTI'] },
  { kind: 'note_for_line_codes', codes: ['DRY-AS'] },
  { kind: 'first_reading_within_hours', hours: 24 },
];

/** The readiness case's job is checked against a program profile, made through the admin API and chosen on the job. */
async function giveProgramProfile(
  base: string,
  key: string,
  adminToken: string,
  jobId: string,
): Promise<void> {
  const context = (await (
    await fetch(`${base}/api/v1/context`, { headers: { authorization: `Bearer ${key}` } })
  ).json()) as { company: { id: string } };
  const res = await fetch(`${base}/admin/v1/companies/${context.company.id}/program-profiles`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench program', carriers: [], rules: PROGRAM_RULES }),
  });
  if (res.status !== 201) throw new Error(`program profile: ${res.status} ${await res.text()}`);
  const profile = (await res.json()) as { id: string };
  await post(base, key, `/api/v1/jobs/${jobId}/overview`, { program_profile_id: profile.id }, 'PATCH');
}
