/**
 * The records a fuzz run works on, made through the API as a user would: a company with jobs,
 * notes, contacts and estimates for the API tools, and a second company that the admin
 * operations may change (rotate and revoke its keys, replace its board) without locking the
 * fuzzer out. Their ids and names become the hints that let generated requests find records.
 */
import { pngOf } from '../photo-files';
import { pdfOf } from '../document-files';
import { makeTestVideos } from '../video-files';
import { PRICE_LIST } from '../../../src/domain/price-list/price-list';
import { DEFAULT_REFERRAL_SOURCES, DEFAULT_STATUSES } from '../../../src/domain/admin/company-setup';
import { ADMIN_TOKEN, as, createCompany, opId, type TestApp, type TestCompany } from '../app';
import type { Hints } from './values';

export interface FuzzWorld {
  api: TestCompany;
  target: TestCompany;
  hints: Hints;
  authorization: Record<'write' | 'read' | 'admin' | 'wrong', string>;
}

const CUSTOMERS = [
  {
    customer_name: 'Maria Alvarez',
    customer_phone: '(555) 201-3344',
    address_line1: '412 Birch Lane',
    city: 'Springfield',
    region: 'IL',
    loss_type: 'water',
  },
  {
    customer_name: 'Tom Nguyen',
    customer_email: 'tom@example.com',
    claim_number: 'SF-22-118734',
    carrier: 'State Farm',
    region: 'TX',
  },
  { customer_name: 'Ana Ruiz', loss_type: 'mold', assignee: 'Dana Brooks', referral_source: 'Plumber' },
  { title: 'Warehouse flood', loss_type: 'flood', postal_code: '62704' },
];

export async function buildWorld(t: TestApp): Promise<FuzzWorld> {
  const api = await createCompany(t, { credits: 100_000 });
  const target = await createCompany(t, { credits: 10 });
  const write = as(t, api.writeKey);
  const admin = (path: string) => t.http.get(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  const jobs: { id: string; job_number: number }[] = [];
  const notes: string[] = [];
  const contacts: string[] = [];
  const estimates: string[] = [];
  const rooms: string[] = [];
  const lines: string[] = [];
  for (const [index, fields] of CUSTOMERS.entries()) {
    const job = (
      await write
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), ...fields })
        .expect(201)
    ).body;
    jobs.push(job);
    for (const text of ['Set 3 air movers in the kitchen.', 'Moisture 18% at the north wall.']) {
      notes.push(
        (await write.post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text }).expect(201))
          .body.id,
      );
    }
    const contact = await write
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), name: `Priya Shah ${index}`, role: 'adjuster', phone: '312-555-0108' })
      .expect(200);
    contacts.push(contact.body.contact.id);
    if (index < 2) {
      const created = await write
        .post(`/api/v1/jobs/${job.id}/estimates`)
        .send({
          operation_id: opId(),
          drying_days: 3,
          rooms: [
            { name: 'Kitchen', length: 14, width: 12, height: 8, drying_days: 3 },
            { name: 'Hall', length: 10.5, width: 4 },
          ],
          line_items: [
            { code: 'DRY-AM-STD', units_per_day: 3, room: 'Kitchen' },
            { code: PRICE_LIST[0].code, quantity: 12.5, room: 'Hall' },
            { description: 'Replace supply line', unit: 'EA', quantity: 1, unit_price: '85.00' },
            // Own lines to change and remove (on the first estimate, which the hints favour).
            ...(index === 0
              ? [
                  'Haul debris',
                  'Permit',
                  'Trip charge',
                  'Supervision',
                  'Dump fee',
                  'Ladder',
                  'Tarp',
                  'Photos',
                ]
              : []
            ).map((description, n) => ({ description, unit: 'EA', quantity: n + 1, unit_price_cents: 2500 })),
          ],
        })
        .expect(201);
      const estimate = created.body.estimate;
      estimates.push(estimate.id);
      for (const room of estimate.rooms) {
        rooms.push(room.id);
        for (const line of room.lines ?? []) lines.push(line.id);
      }
      for (const line of estimate.unassigned_lines) lines.push(line.id);
    }
  }
  // Drying logs on the first jobs, so that skip_drying_day and settings find one.
  for (const job of jobs.slice(0, 3)) {
    await write
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }, { name: 'Hall' }], planned_days: 30 })
      .expect(201);
  }
  // Photos on the first jobs, so that move_photos, update_photos and view_photos find some.
  const photos: string[] = [];
  for (const [index, job] of jobs.slice(0, 2).entries()) {
    const sent = await t.http
      .post(`/api/v1/jobs/${job.id}/photos`)
      .set('Authorization', `Bearer ${api.writeKey}`)
      .field('meta', JSON.stringify({ operation_id: opId(), room: 'Kitchen' }))
      .attach('photo', await pngOf(40 + index, 30), 'kitchen.png')
      .attach('photo', await pngOf(30, 40 + index), 'hall.png')
      .expect(201);
    photos.push(...sent.body.photos.map((p: { id: string }) => p.id));
  }
  // A document and a video, so that read_document finds one and view_photos shows a still.
  const document = await t.http
    .post(`/api/v1/jobs/${jobs[0].id}/documents`)
    .set('Authorization', `Bearer ${api.writeKey}`)
    .field('meta', JSON.stringify({ operation_id: opId() }))
    .attach(
      'document',
      pdfOf([{ lines: ['Moisture map', 'Kitchen wall 18%'] }, { lines: ['Drying report', 'Day 3 dry'] }]),
      'report.pdf',
    )
    .expect(201);
  const videos = await makeTestVideos();
  const video = await t.http
    .post(`/api/v1/jobs/${jobs[0].id}/videos`)
    .set('Authorization', `Bearer ${api.writeKey}`)
    .field('meta', JSON.stringify({ operation_id: opId(), room: 'Kitchen' }))
    .attach('video', videos.mp4, 'walkthrough.mp4')
    .expect(201);
  await videos.remove();
  const keys = (await admin(`/admin/v1/companies/${target.id}/keys`).expect(200)).body.data.map(
    (k: { id: string }) => k.id,
  );
  const categories = [...new Set(PRICE_LIST.map((item) => item.category))];

  const hints: Hints = {
    job_id: [
      ...jobs.map((j) => j.id),
      ...jobs.map((j) => `#${j.job_number}`),
      ...jobs.map((j) => String(j.job_number)),
    ],
    note_id: notes,
    photo_id: photos,
    photo_ids: [...photos, video.body.videos[0].id],
    document_id: [document.body.documents[0].id],
    passage_id: ['epa-wet-drywall', 'fema-wicking', 'osha-flood-co', 'no-such-passage'],
    contact_id: contacts,
    estimate_id: [estimates[0], estimates[0], estimates[0], estimates[1]],
    room_id: rooms,
    line_id: lines,
    person: [...api.people.map((p) => p.name), api.people[0].id, 'dana', 'sam'],
    status: [...DEFAULT_STATUSES, 'cancelled', 'drying', 'Nowhere'],
    statuses: DEFAULT_STATUSES,
    assignee: api.people.map((p) => p.name),
    teammate: [...api.people.map((p) => p.name), 'Dana', 'Nobody'],
    referral_source: [...DEFAULT_REFERRAL_SOURCES, 'Carrier pigeon'],
    referral_sources: DEFAULT_REFERRAL_SOURCES,
    code: ['DRY-AM-STD', 'DRY-DH-LGR', PRICE_LIST[0].code, PRICE_LIST[5].code, 'DRY-AM-STDX', 'NOPE'],
    codes: ['DRY-AM-STD', PRICE_LIST[1].code, 'dry am std', 'NOPE'],
    room: ['Kitchen', 'hall', 'Attic'],
    area: ['Kitchen', 'hall', 'Attic'],
    day: [1, 2, 3, 30],
    value: [18.5, 45, 72, 0],
    category: categories,
    region: ['TX', 'IL', 'dc', 'ZZ'],
    q: [
      'Alvarez',
      '#1',
      '5552013344',
      '(555) 201',
      'water',
      'drywall',
      'category 3 water',
      'dehumidifier',
      'Priya',
      'tom@example.com',
    ],
    company_id: [target.id],
    key_id: keys,
    person_id: target.people.map((p) => p.id),
    timezone: [
      'America/Chicago',
      'Europe/Paris',
      'UTC',
      'US/Pacific-New',
      'Mars/Olympus',
      'EST5EDT',
      'Etc/GMT+12',
      'America/Argentina/ComodRivadavia',
    ],
    pricing_region: ['IL', 'TX'],
    role: ['adjuster', 'tenant', 'customer'],
    label: ['Estimate A', 'Supplement'],
  };
  return {
    api,
    target,
    hints,
    authorization: {
      write: `Bearer ${api.writeKey}`,
      read: `Bearer ${api.readKey}`,
      admin: `Bearer ${ADMIN_TOKEN}`,
      wrong: `Bearer jms_${'x'.repeat(40)}`,
    },
  };
}
