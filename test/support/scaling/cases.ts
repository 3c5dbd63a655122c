/**
 * The requests whose work must not grow with the company: every write tool and the main reads,
 * each about a probe job made through the API the same way in every company, so that what a
 * request should read is the same whatever else the company holds.
 */
import type { Response } from 'supertest';
import { as, opId, type TestApp, type TestCompany } from '../app';
import { pngOf } from '../photo-files';
import { fillerJob } from './filler';

type Api = ReturnType<typeof as>;

export interface Probe {
  jobId: string;
  jobNumber: number;
  estimateId: string;
  roomId: string;
  lineId: string;
  noteId: string;
  contactId: string;
  photoIds: string[];
  teammate: string;
  /** A job of the filled history, number 5, which create_job's request resembles. */
  filled: ReturnType<typeof fillerJob>;
  /** The feed's cursor just before the probe was made. */
  feedCursor: string;
}

export interface ScalingCase {
  name: string;
  /** Unmeasured: whatever the request needs to exist first. */
  before?: (api: Api, probe: Probe) => Promise<Record<string, string>>;
  send: (api: Api, probe: Probe, made: Record<string, string>) => Promise<Response>;
}

async function ok(response: Promise<Response> | Response): Promise<Response> {
  const answer = await response;
  if (answer.status >= 300) throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

async function uploadPhotos(t: TestApp, key: string, jobId: string, sizes: number[]): Promise<Response> {
  const request = t.http
    .post(`/api/v1/jobs/${jobId}/photos`)
    .set('Authorization', `Bearer ${key}`)
    .field('meta', JSON.stringify({ operation_id: opId(), room: 'Kitchen' }));
  for (const size of sizes)
    request.attach('photo', await pngOf(size, size), { filename: `p${size}.png`, contentType: 'image/png' });
  return ok(request);
}

/** Makes the probe job: a customer, notes, an estimate, a drying log with readings and photos. */
export async function makeProbe(t: TestApp, co: TestCompany): Promise<Probe> {
  const api = as(t, co.writeKey);
  const feedCursor = (await ok(api.get('/api/v1/changes?limit=1'))).body.next_cursor as string;
  const job = (
    await ok(
      api.post('/api/v1/jobs').send({
        operation_id: opId(),
        customer_name: 'Probe Pat',
        customer_phone: '(555) 999-0001',
        address_line1: '1 Probe Road',
        claim_number: 'PR-1',
        loss_type: 'water',
      }),
    )
  ).body;
  let noteId = '';
  for (const text of ['Arrived on site', 'Extracted water', 'Set equipment'])
    noteId = (await ok(api.post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text }))).body
      .id;
  const estimate = (
    await ok(
      api.post(`/api/v1/jobs/${job.id}/estimates`).send({
        operation_id: opId(),
        rooms: [
          { name: 'Kitchen', length: 12, width: 10, height: 8 },
          { name: 'Hall', length: 6, width: 4, height: 8 },
        ],
        line_items: [
          { code: 'WTR-EXT-CP', quantity: 120, room: 'Kitchen' },
          { code: 'WTR-EXT-CP', quantity: 24, room: 'Hall' },
          { code: 'WTR-EXT-CP', quantity: 10, room: 'Kitchen' },
        ],
      }),
    )
  ).body.estimate;
  await ok(
    api
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }, { name: 'Hall' }], planned_days: 30 }),
  );
  await ok(
    api.post(`/api/v1/jobs/${job.id}/drying-log/readings`).send({
      operation_id: opId(),
      day: 1,
      area: 'Kitchen',
      readings: [
        { metric: 'temp_f', value: 72 },
        { metric: 'rh_pct', value: 60 },
        { metric: 'drywall', value: 30, point: 'north wall' },
      ],
    }),
  );
  const photos = (await uploadPhotos(t, co.writeKey, job.id, [40, 41])).body;
  const contact = (
    await ok(
      api
        .post(`/api/v1/jobs/${job.id}/contacts`)
        .send({ operation_id: opId(), name: 'Ada Adjuster', phone: '555-888-0001', role: 'adjuster' }),
    )
  ).body.contact;
  return {
    jobId: job.id,
    jobNumber: job.job_number,
    estimateId: estimate.id,
    roomId: estimate.rooms[0].id,
    lineId: estimate.rooms[0].lines[0].id,
    noteId,
    contactId: contact.id,
    photoIds: photos.photos.map((p: { id: string }) => p.id),
    teammate: co.people[3].name,
    filled: fillerJob(5),
    feedCursor,
  };
}

const enc = encodeURIComponent;

export function scalingCases(t: TestApp, co: TestCompany): ScalingCase[] {
  let skipped = 2;
  const withNote = async (api: Api, p: Probe) => ({
    note: (
      await ok(api.post(`/api/v1/jobs/${p.jobId}/notes`).send({ operation_id: opId(), text: 'To change' }))
    ).body.id as string,
  });
  const withLine = async (api: Api, p: Probe) => ({
    line: (
      await ok(
        api
          .post(`/api/v1/estimates/${p.estimateId}/line-items`)
          .send({ operation_id: opId(), line_items: [{ code: 'WTR-EXT-CP', quantity: 5 }] }),
      )
    ).body.added[0].id as string,
  });
  const withUnit = async (api: Api, p: Probe) => ({
    unit: (
      await ok(
        api
          .post(`/api/v1/jobs/${p.jobId}/drying-log/equipment`)
          .send({ operation_id: opId(), area: 'Hall', units: [{ kind: 'heater' }] }),
      )
    ).body.placed[0].id as string,
  });
  const undo = (api: Api) => api.post('/api/v1/undo').send({ operation_id: opId() });
  return [
    // Reads
    { name: 'get_context', send: (api) => api.get('/api/v1/context') },
    { name: 'get_job', send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}`) },
    { name: 'get_job by number', send: (api, p) => api.get(`/api/v1/jobs/%23${p.jobNumber}`) },
    {
      name: 'find_jobs q=customer name',
      send: (api, p) => api.get(`/api/v1/jobs?q=${enc(p.filled.customer)}`),
    },
    {
      name: 'find_jobs q=phone, other format',
      send: (api, p) => api.get(`/api/v1/jobs?q=${enc(p.filled.phone.replace(/\D/g, ''))}`),
    },
    { name: 'find_jobs q=claim number', send: (api, p) => api.get(`/api/v1/jobs?q=${enc(p.filled.claim)}`) },
    {
      name: 'find_jobs status+created_from, paged',
      send: (api) => api.get('/api/v1/jobs?status=new&created_from=2024-01-02&limit=50'),
    },
    {
      name: 'find_jobs second page',
      send: async (api) =>
        api.get(
          `/api/v1/jobs?limit=25&cursor=${(await ok(api.get('/api/v1/jobs?limit=25'))).body.next_cursor}`,
        ),
    },
    { name: 'get_job_activity', send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}/activity`) },
    {
      name: 'list_changes with a cursor',
      send: (api, p) => api.get(`/api/v1/changes?cursor=${p.feedCursor}&limit=25`),
    },
    {
      name: 'list_changes since today',
      send: async (api) =>
        api.get(
          `/api/v1/changes?since=${(await ok(api.get('/api/v1/context'))).body.company.today}&limit=25`,
        ),
    },
    { name: 'list_changes of a kind', send: (api) => api.get('/api/v1/changes?kind=estimates&limit=25') },
    { name: 'lookup_customer', send: (api, p) => api.get(`/api/v1/customers?q=${enc(p.filled.customer)}`) },
    { name: 'get_estimate', send: (api, p) => api.get(`/api/v1/estimates/${p.estimateId}`) },
    {
      name: 'get_drying_log',
      send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}/drying-log?detail=readings`),
    },
    { name: 'check_claim_readiness', send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}/claim-readiness`) },
    { name: 'list_job_photos', send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}/photos`) },
    { name: 'list_job_documents', send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}/documents`) },
    { name: 'list_job_forms', send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}/forms`) },
    { name: 'list_job_videos', send: (api, p) => api.get(`/api/v1/jobs/${p.jobId}/videos`) },
    { name: 'list_team', send: (api) => api.get('/api/v1/team') },
    // Writes
    {
      name: 'create_job with duplicates',
      send: (api, p) =>
        api.post('/api/v1/jobs').send({
          operation_id: opId(),
          customer_name: 'New Person',
          customer_phone: p.filled.phone,
          address_line1: p.filled.street.toUpperCase(),
          claim_number: p.filled.claim,
        }),
    },
    {
      name: 'update_job_overview',
      send: (api, p) =>
        api
          .patch(`/api/v1/jobs/${p.jobId}/overview`)
          .send({ operation_id: opId(), carrier: `Carrier ${opId().slice(0, 4)}` }),
    },
    {
      name: 'move_job_status',
      send: (api, p) =>
        api.post(`/api/v1/jobs/${p.jobId}/status`).send({ operation_id: opId(), status: 'Inspection' }),
    },
    {
      name: 'cancel_job',
      send: (api, p) =>
        api.post(`/api/v1/jobs/${p.jobId}/cancel`).send({ operation_id: opId(), reason: 'Testing' }),
    },
    {
      name: 'reopen_job',
      send: (api, p) => api.post(`/api/v1/jobs/${p.jobId}/reopen`).send({ operation_id: opId() }),
    },
    {
      name: 'add_contact',
      send: (api, p) =>
        api
          .post(`/api/v1/jobs/${p.jobId}/contacts`)
          .send({ operation_id: opId(), name: 'Tess Tenant', phone: '555-777-0001', role: 'tenant' }),
    },
    {
      name: 'update_contact',
      send: (api, p) =>
        api
          .patch(`/api/v1/jobs/${p.jobId}/contacts/${p.contactId}`)
          .send({ operation_id: opId(), email: `ada${opId().slice(0, 4)}@example.com` }),
    },
    {
      name: 'assign_job',
      send: (api, p) =>
        api.post(`/api/v1/jobs/${p.jobId}/assignees`).send({ operation_id: opId(), teammate: p.teammate }),
    },
    {
      name: 'unassign_job',
      send: (api, p) =>
        api.delete(`/api/v1/jobs/${p.jobId}/assignees/${enc(p.teammate)}?operation_id=${opId()}`),
    },
    {
      name: 'add_note',
      send: (api, p) =>
        api
          .post(`/api/v1/jobs/${p.jobId}/notes`)
          .send({ operation_id: opId(), text: 'Moisture down in the hall' }),
    },
    {
      name: 'correct_note',
      before: withNote,
      send: (api, p, made) =>
        api
          .patch(`/api/v1/jobs/${p.jobId}/notes/${made.note}`)
          .send({ operation_id: opId(), text: 'Changed' }),
    },
    {
      name: 'retract_note',
      before: withNote,
      send: (api, p, made) => api.delete(`/api/v1/jobs/${p.jobId}/notes/${made.note}?operation_id=${opId()}`),
    },
    {
      name: 'create_estimate',
      send: (api, p) =>
        api.post(`/api/v1/jobs/${p.jobId}/estimates`).send({
          operation_id: opId(),
          rooms: [{ name: 'Den' }],
          line_items: [{ code: 'WTR-EXT-CP', quantity: 10, room: 'Den' }],
        }),
    },
    {
      name: 'add_rooms',
      send: (api, p) =>
        api
          .post(`/api/v1/estimates/${p.estimateId}/rooms`)
          .send({ operation_id: opId(), rooms: [{ name: `Room ${opId().slice(0, 6)}` }] }),
    },
    {
      name: 'update_estimate',
      send: (api, p) =>
        api
          .patch(`/api/v1/estimates/${p.estimateId}`)
          .send({ operation_id: opId(), scope_summary: `Scope ${opId().slice(0, 8)}` }),
    },
    {
      name: 'update_room',
      send: (api, p) =>
        api
          .patch(`/api/v1/estimates/${p.estimateId}/rooms/${p.roomId}`)
          .send({ operation_id: opId(), length: 12 + Math.floor(Math.random() * 5) }),
    },
    {
      name: 'add_line_items',
      send: (api, p) =>
        api
          .post(`/api/v1/estimates/${p.estimateId}/line-items`)
          .send({ operation_id: opId(), line_items: [{ code: 'WTR-EXT-CP', quantity: 3, room: 'Hall' }] }),
    },
    {
      name: 'update_line_item',
      send: (api, p) =>
        api
          .patch(`/api/v1/estimates/${p.estimateId}/line-items/${p.lineId}`)
          .send({ operation_id: opId(), quantity: 100 + Math.floor(Math.random() * 50) }),
    },
    {
      name: 'remove_line_item',
      before: withLine,
      send: (api, p, made) =>
        api.delete(`/api/v1/estimates/${p.estimateId}/line-items/${made.line}?operation_id=${opId()}`),
    },
    {
      name: 'create_drying_log',
      before: async (api) => ({
        job: (await ok(api.post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Dry Dora' })))
          .body.id,
      }),
      send: (api, _p, made) =>
        api
          .post(`/api/v1/jobs/${made.job}/drying-log`)
          .send({ operation_id: opId(), rooms: [{ name: 'Basement' }] }),
    },
    {
      name: 'update_drying_settings',
      send: (api, p) =>
        api
          .patch(`/api/v1/jobs/${p.jobId}/drying-log/settings`)
          .send({ operation_id: opId(), planned_days: 30 + Math.floor(Math.random() * 3) }),
    },
    {
      name: 'add_drying_readings',
      send: (api, p) =>
        api.post(`/api/v1/jobs/${p.jobId}/drying-log/readings`).send({
          operation_id: opId(),
          day: 1,
          area: 'Hall',
          readings: [
            { metric: 'temp_f', value: 70 },
            { metric: 'rh_pct', value: 55 },
          ],
        }),
    },
    {
      name: 'add_drying_note',
      send: (api, p) =>
        api
          .post(`/api/v1/jobs/${p.jobId}/drying-log/notes`)
          .send({ operation_id: opId(), text: 'Fans moved', day: 1 }),
    },
    {
      name: 'skip_drying_day',
      send: (api, p) =>
        api
          .post(`/api/v1/jobs/${p.jobId}/drying-log/skip-day`)
          .send({ operation_id: opId(), day: skipped++, reason: 'No access' }),
    },
    {
      name: 'place_equipment',
      send: (api, p) =>
        api
          .post(`/api/v1/jobs/${p.jobId}/drying-log/equipment`)
          .send({ operation_id: opId(), area: 'Kitchen', units: [{ kind: 'air_mover', count: 2 }] }),
    },
    {
      name: 'remove_equipment',
      before: withUnit,
      send: (api, p, made) =>
        api
          .post(`/api/v1/jobs/${p.jobId}/drying-log/equipment/remove`)
          .send({ operation_id: opId(), equipment_ids: [made.unit] }),
    },
    {
      name: 'set_drying_chambers',
      send: (api, p) =>
        api.put(`/api/v1/jobs/${p.jobId}/drying-log/chambers`).send({
          operation_id: opId(),
          chambers: [
            {
              name: 'Main',
              category: 2,
              areas: [
                { name: 'Kitchen', wet_floor_sqft: 40 + Math.floor(Math.random() * 80) },
                { name: 'Hall' },
              ],
            },
          ],
        }),
    },
    {
      name: 'upload_job_photos',
      send: (_api, p) => uploadPhotos(t, co.writeKey, p.jobId, [30 + Math.floor(Math.random() * 1000)]),
    },
    {
      name: 'move_photos',
      send: (api, p) =>
        api.post(`/api/v1/jobs/${p.jobId}/photos/rooms`).send({
          operation_id: opId(),
          photo_ids: [p.photoIds[0]],
          room: Math.random() < 0.5 ? 'Hall' : 'Kitchen',
        }),
    },
    {
      name: 'update_photos',
      send: (api, p) =>
        api.patch(`/api/v1/jobs/${p.jobId}/photos`).send({
          operation_id: opId(),
          photos: [{ photo_id: p.photoIds[1], caption: `Wet wall ${opId().slice(0, 4)}` }],
        }),
    },
    { name: 'undo_my_last_action: a note', before: withNote, send: undo },
    {
      name: 'undo_my_last_action: an estimate',
      before: async (api, p) => ({
        estimate: (
          await ok(
            api.post(`/api/v1/jobs/${p.jobId}/estimates`).send({
              operation_id: opId(),
              rooms: [{ name: 'Den' }],
              line_items: [{ code: 'WTR-EXT-CP', quantity: 10, room: 'Den' }],
            }),
          )
        ).body.estimate.id,
      }),
      send: undo,
    },
    {
      name: 'undo_my_last_action: rooms',
      before: async (api, p) => ({
        room: (
          await ok(
            api
              .post(`/api/v1/estimates/${p.estimateId}/rooms`)
              .send({ operation_id: opId(), rooms: [{ name: `Undo ${opId().slice(0, 6)}` }] }),
          )
        ).body.id,
      }),
      send: undo,
    },
    {
      name: 'undo_my_last_action: a drying log',
      before: async (api) => {
        const job = (
          await ok(api.post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Undo Una' }))
        ).body.id;
        await ok(
          api
            .post(`/api/v1/jobs/${job}/drying-log`)
            .send({ operation_id: opId(), rooms: [{ name: 'Attic' }] }),
        );
        return { job };
      },
      send: undo,
    },
  ];
}
