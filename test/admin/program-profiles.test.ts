/**
 * Carrier program profiles: kept through the admin API (every bad rule a 422 naming its field,
 * another company's profile a 404), read by assistants over HTTP and MCP, and chosen on a job
 * through update_job_overview (feed, undo, replays, conflicts, read keys, other companies).
 */
import type { components } from '../../sdk/src/schema';
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { MARIA, openJob, readJob } from '../support/jobs';
import { callTool, connectMcp, problemOf } from '../support/mcp';

type Profile = components['schemas']['ProgramProfile'];

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

const admin = () => ({
  post: (p: string) => t.http.post(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  put: (p: string) => t.http.put(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  get: (p: string) => t.http.get(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  delete: (p: string) => t.http.delete(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
});
const profilesOf = (company: TestCompany) => `/admin/v1/companies/${company.id}/program-profiles`;

const SEDGWICK = {
  name: 'Sedgwick water mitigation',
  carriers: ['Sedgwick', ' Code Blue '],
  rules: [
    { kind: 'photos_per_room', min_photos: 4 },
    { kind: 'equipment_photographed' },
    { kind: 'before_and_after_photos', severity: 'low' },
    { kind: 'daily_atmospherics', severity: 'high' },
    { kind: 'moisture_point_per_material' },
    { kind: 'note_for_line_codes', codes: ['WTR-ANTIMIC'] },
    { kind: 'first_reading_within_hours', hours: 24 },
  ],
};

async function createProfile(company: TestCompany, body: Record<string, unknown>): Promise<Profile> {
  return (await admin().post(profilesOf(company)).send(body).expect(201)).body;
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

describe('admin_create_program_profile, admin_list_program_profiles, admin_get_program_profile, admin_replace_program_profile, admin_delete_program_profile: a company keeps its programs', () => {
  it('creates, lists, reads, replaces and deletes a profile; each rule keeps its parameters and gets a severity', async () => {
    const made = await createProfile(co, SEDGWICK);
    expect(made).toMatchObject({
      id: expect.stringMatching(/^prg_/),
      name: 'Sedgwick water mitigation',
      carriers: ['Sedgwick', 'Code Blue'],
    });
    expect(made.rules[0]).toEqual({ kind: 'photos_per_room', min_photos: 4, severity: 'medium' });
    expect(made.rules[2]).toEqual({ kind: 'before_and_after_photos', severity: 'low' });
    expect(made.rules[5]).toEqual({
      kind: 'note_for_line_codes',
      codes: ['WTR-ANTIMIC'],
      severity: 'medium',
    });

    expect((await admin().get(profilesOf(co)).expect(200)).body).toEqual({ data: [made], next_cursor: null });
    expect(
      (
        await admin()
          .get(`${profilesOf(co)}/${made.id}`)
          .expect(200)
      ).body,
    ).toEqual(made);

    const replaced = (
      await admin()
        .put(`${profilesOf(co)}/${made.id}`)
        .send({ name: 'Sedgwick 2027', carriers: ['Sedgwick'], rules: [{ kind: 'equipment_photographed' }] })
        .expect(200)
    ).body as Profile;
    expect(replaced).toMatchObject({
      id: made.id,
      name: 'Sedgwick 2027',
      carriers: ['Sedgwick'],
      rules: [{ kind: 'equipment_photographed', severity: 'medium' }],
      created_at: made.created_at,
    });
    await admin()
      .delete(`${profilesOf(co)}/${made.id}`)
      .expect(204);
    await admin()
      .get(`${profilesOf(co)}/${made.id}`)
      .expect(404);
    expect((await admin().get(profilesOf(co)).expect(200)).body.data).toEqual([]);
  });

  it('refuses bad rules and parameters with 422 naming each field, and saves nothing', async () => {
    const cases: [unknown[], string[]][] = [
      [[{ kind: 'photos_per_room' }], ['/body/rules/0/min_photos']],
      [[{ kind: 'photos_per_room', min_photos: 0 }], ['/body/rules/0/min_photos']],
      [[{ kind: 'photos_per_room', min_photos: 'four' }], ['/body/rules/0/min_photos']],
      [[{ kind: 'equipment_photographed' }, { kind: 'selfies' }], ['/body/rules/1/kind']],
      [[{ min_photos: 3 }], ['/body/rules/0/kind']],
      [[{ kind: 'daily_atmospherics', colour: 'red' }], ['/body/rules/0/colour']],
      [[{ kind: 'daily_atmospherics', severity: 'urgent' }], ['/body/rules/0/severity']],
      [[{ kind: 'note_for_line_codes', codes: [] }], ['/body/rules/0/codes']],
      [[{ kind: 'first_reading_within_hours', hours: 1000 }], ['/body/rules/0/hours']],
      [
        [
          { kind: 'first_reading_within_hours', hours: -1 },
          { kind: 'note_for_line_codes', codes: [' '] },
        ],
        ['/body/rules/0/hours', '/body/rules/1/codes/0'],
      ],
    ];
    for (const [rules, paths] of cases) {
      const res = await admin().post(profilesOf(co)).send({ name: 'Bad', carriers: [], rules }).expect(422);
      expect(res.body.code).toBe('invalid_program_profile');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    }
    // The body's own shape is the request's: a 400.
    await admin().post(profilesOf(co)).send({ name: 'No rules', carriers: [] }).expect(400);
    await admin()
      .post(profilesOf(co))
      .send({ name: 'X', carriers: [], rules: ['photos'] })
      .expect(400);
    expect((await admin().get(profilesOf(co)).expect(200)).body.data).toEqual([]);
  });

  it('gives a carrier to one profile of a company (any case); another company may have it too', async () => {
    const first = await createProfile(co, { name: 'Alacrity', carriers: ['Alacrity'], rules: [] });
    const taken = await admin()
      .post(profilesOf(co))
      .send({ name: 'Alacrity again', carriers: ['Contractor Connection', 'ALACRITY '], rules: [] })
      .expect(422);
    expect(taken.body.errors).toEqual([
      { path: '/body/carriers/1', message: 'is already a carrier of "Alacrity"' },
    ]);
    const twice = await admin()
      .post(profilesOf(co))
      .send({ name: 'Twice', carriers: ['Accuserve', 'accuserve'], rules: [] })
      .expect(422);
    expect(twice.body.errors).toEqual([{ path: '/body/carriers/1', message: 'is listed twice' }]);
    // Replacing a profile with its own carriers is no clash.
    await admin()
      .put(`${profilesOf(co)}/${first.id}`)
      .send({ name: 'Alacrity', carriers: ['alacrity'], rules: [] })
      .expect(200);
    await createProfile(other, { name: 'Alacrity', carriers: ['Alacrity'], rules: [] });
    await admin()
      .delete(`${profilesOf(co)}/${first.id}`)
      .expect(204);
  });

  it("answers 404 for another company's profile and an unknown company; needs the admin token", async () => {
    const theirs = await createProfile(other, { name: 'Theirs', carriers: [], rules: [] });
    await admin()
      .get(`${profilesOf(co)}/${theirs.id}`)
      .expect(404);
    await admin()
      .put(`${profilesOf(co)}/${theirs.id}`)
      .send({ name: 'Mine now', carriers: [], rules: [] })
      .expect(404);
    await admin()
      .delete(`${profilesOf(co)}/${theirs.id}`)
      .expect(404);
    expect(
      (
        await admin()
          .get(`${profilesOf(other)}/${theirs.id}`)
          .expect(200)
      ).body.name,
    ).toBe('Theirs');
    await admin().get('/admin/v1/companies/co_nope/program-profiles').expect(404);
    await admin().post('/admin/v1/companies/co_nope/program-profiles').send(SEDGWICK).expect(404);
    await admin()
      .get(`${profilesOf(co)}/prg_nope`)
      .expect(404);
    await admin()
      .get(`${profilesOf(co)}/not-an-id`)
      .expect(400);
    await t.http.get(profilesOf(co)).set('Authorization', `Bearer ${co.writeKey}`).expect(401);
  });
});

describe('list_program_profiles: what an assistant reads', () => {
  it('lists the profiles of the key’s company only, over HTTP and MCP, with a read key', async () => {
    const mine = await createProfile(co, { ...SEDGWICK, name: 'Listed', carriers: ['Listed Carrier'] });
    const listed = (await as(t, co.readKey).get('/api/v1/program-profiles').expect(200)).body;
    expect(listed.data.map((p: Profile) => p.id)).toEqual([mine.id]);
    expect(listed.data[0]).toEqual(mine);
    const theirs = (await as(t, other.readKey).get('/api/v1/program-profiles').expect(200)).body.data;
    expect(theirs.map((p: Profile) => p.id)).not.toContain(mine.id);

    const client = await connectMcp(t, co.readKey);
    const result = await callTool(client, 'list_program_profiles', {});
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: Profile[] }).data).toEqual([mine]);
    await client.close();
    await admin()
      .delete(`${profilesOf(co)}/${mine.id}`)
      .expect(204);
  });
});

describe('update_job_overview program_profile_id, get_job program_profile: the profile a job is checked against', () => {
  const overview = (jobId: string, body: Record<string, unknown>, key = co.writeKey) =>
    as(t, key).patch(`/api/v1/jobs/${jobId}/overview`).send(body);

  it('applies the carrier’s profile, or the one chosen on the job; null goes back to the carrier’s', async () => {
    const sedgwick = await createProfile(co, { ...SEDGWICK, name: 'Sedgwick', carriers: ['Sedgwick'] });
    const chosen = await createProfile(co, { name: 'Desk extras', carriers: [], rules: [] });
    const job = await openJob(t, co.writeKey, { ...MARIA, carrier: 'SEDGWICK' });
    expect(job.program_profile).toEqual({ id: sedgwick.id, name: 'Sedgwick', applies_because: 'carrier' });
    expect((await readJob(t, co.readKey, job.id)).program_profile).toEqual(job.program_profile);

    const changed = (
      await overview(job.id, { operation_id: opId(), program_profile_id: chosen.id }).expect(200)
    ).body;
    expect(changed.program_profile).toEqual({
      id: chosen.id,
      name: 'Desk extras',
      applies_because: 'chosen_on_job',
    });
    const feed = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity?kind=changes`).expect(200))
      .body.data;
    expect(feed[0].data).toEqual({
      action: 'job.overview_updated',
      fields: [{ field: 'program_profile_id', before: null, after: chosen.id }],
    });

    await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await readJob(t, co.readKey, job.id)).program_profile?.id).toBe(sedgwick.id);

    await overview(job.id, { program_profile_id: chosen.id }).expect(200);
    const back = (await overview(job.id, { program_profile_id: null }).expect(200)).body;
    expect(back.program_profile).toEqual({ id: sedgwick.id, name: 'Sedgwick', applies_because: 'carrier' });

    // A job whose carrier has no profile has none; deleting a chosen profile sends the job back to its carrier's.
    const plain = await openJob(t, co.writeKey, { ...MARIA, carrier: 'State Farm' });
    expect(plain.program_profile).toBeNull();
    await overview(job.id, { program_profile_id: chosen.id }).expect(200);
    await admin()
      .delete(`${profilesOf(co)}/${chosen.id}`)
      .expect(204);
    expect((await readJob(t, co.readKey, job.id)).program_profile?.applies_because).toBe('carrier');
    await admin()
      .delete(`${profilesOf(co)}/${sedgwick.id}`)
      .expect(204);
    expect((await readJob(t, co.readKey, job.id)).program_profile).toBeNull();

    // A choice cleared, then its profile deleted: undo cannot put the deleted profile back.
    const gone = await createProfile(co, { name: 'Gone soon', carriers: [], rules: [] });
    await overview(job.id, { program_profile_id: gone.id }).expect(200);
    await overview(job.id, { program_profile_id: null }).expect(200);
    await admin()
      .delete(`${profilesOf(co)}/${gone.id}`)
      .expect(204);
    const undo = await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() });
    expect([undo.status, undo.body.code]).toEqual([409, 'undo_not_possible']);
    expect((await readJob(t, co.readKey, job.id)).program_profile).toBeNull();
  });

  it('replays, refuses a conflicting operation_id, a read key, another company’s job or profile, and a bad id', async () => {
    const mine = await createProfile(co, { name: 'Mine', carriers: [], rules: [] });
    const second = await createProfile(co, { name: 'Second', carriers: [], rules: [] });
    const theirs = await createProfile(other, { name: 'Theirs', carriers: [], rules: [] });
    const job = await openJob(t, co.writeKey, MARIA);
    const operationId = opId();
    const first = await overview(job.id, { operation_id: operationId, program_profile_id: mine.id }).expect(
      200,
    );
    const again = await overview(job.id, { operation_id: operationId, program_profile_id: mine.id }).expect(
      200,
    );
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const conflict = await overview(job.id, {
      operation_id: operationId,
      program_profile_id: second.id,
    }).expect(409);
    expect(conflict.body.code).toBe('operation_id_conflict');

    expect((await overview(job.id, { program_profile_id: theirs.id }).expect(404)).body.code).toBe(
      'not_found',
    );
    await overview(job.id, { program_profile_id: 'prg_unknown1' }).expect(404);
    await overview(job.id, { program_profile_id: 'Sedgwick' }).expect(404);
    await overview(job.id, { program_profile_id: '' }).expect(404);
    expect((await overview(job.id, { program_profile_id: 7 }).expect(400)).body.errors[0].path).toBe(
      '/body/program_profile_id',
    );
    await overview(job.id, { program_profile_id: second.id }, co.readKey).expect(403);
    const theirJob = await openJob(t, other.writeKey, MARIA);
    await overview(theirJob.id, { program_profile_id: mine.id }).expect(404);
    expect((await readJob(t, co.readKey, job.id)).program_profile?.id).toBe(mine.id);

    const client = await connectMcp(t, co.writeKey);
    const refused = await callTool(client, 'update_job_overview', {
      job_id: job.id,
      program_profile_id: theirs.id,
    });
    expect(problemOf(refused)).toMatchObject({ status: 404, code: 'not_found' });
    const viaMcp = await callTool(client, 'update_job_overview', {
      job_id: job.id,
      operation_id: opId(),
      program_profile_id: second.id,
    });
    expect((viaMcp.structuredContent as { program_profile: unknown }).program_profile).toEqual({
      id: second.id,
      name: 'Second',
      applies_because: 'chosen_on_job',
    });
    await client.close();
  });
});
