/** The admin API: companies, team, keys, board, referral sources, credits and chat (its CLI is in admin-cli.test.ts). */
import { ADMIN_TOKEN, as, createCompany, startApp, type TestApp } from '../support/app';

let t: TestApp;
const admin = () => ({
  post: (p: string) => t.http.post(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  put: (p: string) => t.http.put(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  get: (p: string) => t.http.get(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  delete: (p: string) => t.http.delete(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
});

beforeAll(async () => {
  // Chat webhooks on loopback are refused unless allowed; this machine has no public address to use.
  t = await startApp({ CHAT_ALLOW_PRIVATE_TARGETS: 'true' });
});
afterAll(() => t.close());

describe('admin_create_company, admin_add_team_member, admin_create_key, admin_list_keys, admin_rotate_key, admin_revoke_key: companies, team and keys', () => {
  it('a new company gets the default board and referral sources', async () => {
    const company = await admin()
      .post('/admin/v1/companies')
      .send({ name: 'Blue River', pricing_region: 'IL', credits: 3 })
      .expect(201);
    expect(company.body).toMatchObject({
      name: 'Blue River',
      timezone: 'America/Chicago',
      pricing_region: 'IL',
      credits: 3,
    });
    expect(company.body.id).toMatch(/^co_/);
    const person = await admin()
      .post(`/admin/v1/companies/${company.body.id}/team`)
      .send({ name: 'Dana Brooks', role: 'Project manager', email: 'dana@example.com' })
      .expect(201);
    expect(person.body).toEqual({
      id: expect.stringMatching(/^per_/),
      name: 'Dana Brooks',
      role: 'Project manager',
      email: 'dana@example.com',
      responsibilities: [],
    });
    const key = await admin()
      .post(`/admin/v1/companies/${company.body.id}/keys`)
      .send({ person_id: person.body.id, scope: 'read' })
      .expect(201);
    expect(key.body.key).toMatch(/^jms_[0-9A-Za-z]{40}$/);
    expect(key.body.key.startsWith(key.body.prefix)).toBe(true);

    const statuses = await as(t, key.body.key).get('/api/v1/job-statuses').expect(200);
    expect(statuses.body.data.map((s: { name: string }) => s.name)).toEqual([
      'New',
      'Inspection',
      'Mitigation',
      'Drying',
      'Rebuild',
      'Invoicing',
      'Closed',
    ]);
    const sources = await as(t, key.body.key).get('/api/v1/referral-sources').expect(200);
    expect(sources.body.data.length).toBeGreaterThan(2);
    const context = await as(t, key.body.key).get('/api/v1/context').expect(200);
    expect(context.body).toMatchObject({
      person: { name: 'Dana Brooks' },
      company: { name: 'Blue River' },
      key: { scope: 'read' },
      credits: { remaining: 3 },
    });
  });

  it('checks what it is sent', async () => {
    expect(
      (await admin().post('/admin/v1/companies').send({ name: 'X', timezone: 'Mars/Olympus' }).expect(400))
        .body.errors[0].path,
    ).toBe('/body/timezone');
    expect((await admin().post('/admin/v1/companies').send({}).expect(400)).body.code).toBe(
      'invalid_request',
    );
    await admin().post('/admin/v1/companies/co_nope/team').send({ name: 'A', role: 'B' }).expect(404);
    const a = await createCompany(t);
    const b = await createCompany(t);
    const res = await admin()
      .post(`/admin/v1/companies/${a.id}/keys`)
      .send({ person_id: b.people[0].id, scope: 'write' })
      .expect(422);
    expect(res.body.code).toBe('unknown_person');
  });

  it('lists keys without secrets; rotating and revoking take effect at once', async () => {
    const co = await createCompany(t);
    const keys = await admin().get(`/admin/v1/companies/${co.id}/keys`).expect(200);
    expect(keys.body.data).toHaveLength(3);
    expect(JSON.stringify(keys.body)).not.toContain(co.writeKey);
    const writeKey = keys.body.data.find((k: { prefix: string }) => co.writeKey.startsWith(k.prefix));
    expect(writeKey).toMatchObject({ scope: 'write', person: { name: 'Avery Stone' }, revoked_at: null });

    const rotated = await admin().post(`/admin/v1/keys/${writeKey.id}/rotate`).expect(200);
    await as(t, co.writeKey).get('/api/v1/context').expect(401);
    await as(t, rotated.body.key).get('/api/v1/context').expect(200);

    await admin().delete(`/admin/v1/keys/${writeKey.id}`).expect(204);
    const refused = await as(t, rotated.body.key).get('/api/v1/context').expect(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer /);
    await admin().delete(`/admin/v1/keys/${writeKey.id}`).expect(204);
    await admin().post(`/admin/v1/keys/${writeKey.id}/rotate`).expect(404);
    const listed = await admin().get(`/admin/v1/companies/${co.id}/keys`).expect(200);
    expect(listed.body.data.find((k: { id: string }) => k.id === writeKey.id).revoked_at).not.toBeNull();
  });

  it('refuses a wrong admin token, and is off without ADMIN_TOKEN', async () => {
    const res = await t.http
      .post('/admin/v1/companies')
      .set('Authorization', 'Bearer wrong-token-wrong-token')
      .send({ name: 'X' })
      .expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    const off = await startApp({ ADMIN_TOKEN: '' });
    const disabled = await off.http
      .post('/admin/v1/companies')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: 'X' })
      .expect(404);
    expect(disabled.body.code).toBe('admin_api_disabled');
    await off.close();
  });
});

describe('admin_set_statuses, admin_set_referral_sources, admin_add_credits, admin_set_chat: company settings', () => {
  it('sets the board: reorders, renames by case, adds, and refuses to drop a status that holds jobs', async () => {
    const co = await createCompany(t);
    await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: 'board-1' }).expect(201);
    const set = await admin()
      .put(`/admin/v1/companies/${co.id}/statuses`)
      .send({
        statuses: [
          'NEW',
          'Drying',
          'Estimate review',
          'Inspection',
          'Mitigation',
          'Rebuild',
          'Invoicing',
          'Closed',
        ],
      })
      .expect(200);
    expect(set.body.data[2]).toEqual({ name: 'Estimate review', position: 3 });
    const board = await as(t, co.readKey).get('/api/v1/job-statuses').expect(200);
    expect(board.body.data.slice(0, 3)).toEqual([
      { id: expect.any(String), name: 'NEW', position: 1, open_jobs: 1 },
      { id: expect.any(String), name: 'Drying', position: 2, open_jobs: 0 },
      { id: expect.any(String), name: 'Estimate review', position: 3, open_jobs: 0 },
    ]);
    const refused = await admin()
      .put(`/admin/v1/companies/${co.id}/statuses`)
      .send({ statuses: ['Drying', 'Closed'] })
      .expect(409);
    expect(refused.body).toMatchObject({ code: 'invalid_state', detail: expect.stringContaining('NEW') });
    await admin()
      .put(`/admin/v1/companies/${co.id}/statuses`)
      .send({ statuses: ['New', 'new'] })
      .expect(400);
    await admin().put(`/admin/v1/companies/${co.id}/statuses`).send({ statuses: [] }).expect(400);
  });

  it('sets referral sources, credits and the chat integration', async () => {
    const co = await createCompany(t);
    await admin()
      .put(`/admin/v1/companies/${co.id}/referral-sources`)
      .send({ referral_sources: ['Agent referral', 'Plumber'] })
      .expect(200);
    expect((await as(t, co.readKey).get('/api/v1/referral-sources')).body.data).toEqual([
      { name: 'Agent referral' },
      { name: 'Plumber' },
    ]);

    expect(
      (await admin().post(`/admin/v1/companies/${co.id}/credits`).send({ add: 10 }).expect(200)).body,
    ).toEqual({ credits: 15 });
    expect(
      (await admin().post(`/admin/v1/companies/${co.id}/credits`).send({ add: -100 }).expect(200)).body,
    ).toEqual({ credits: 0 });
    expect((await as(t, co.readKey).get('/api/v1/context')).body.credits).toEqual({ remaining: 0 });
    await admin().post(`/admin/v1/companies/${co.id}/credits`).send({ add: 'ten' }).expect(400);

    expect((await as(t, co.readKey).get('/api/v1/context')).body.chat).toEqual({
      connected: false,
      new_note: false,
    });
    await admin()
      .put(`/admin/v1/companies/${co.id}/chat`)
      .send({ webhook_url: 'http://127.0.0.1:9/hooks/chat', new_note: true })
      .expect(200);
    expect((await as(t, co.readKey).get('/api/v1/context')).body.chat).toEqual({
      connected: true,
      new_note: true,
    });
    await admin()
      .put(`/admin/v1/companies/${co.id}/chat`)
      .send({ webhook_url: null, new_note: true })
      .expect(200);
    expect((await as(t, co.readKey).get('/api/v1/context')).body.chat).toEqual({
      connected: false,
      new_note: false,
    });
  });
});

describe('admin_list_companies, admin_list_team: listing companies and teams', () => {
  it("pages every company oldest first, and each company's team", async () => {
    const made = [await createCompany(t), await createCompany(t), await createCompany(t)];
    const seen: { id: string; name: string; credits: number }[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: typeof seen; next_cursor: string | null } } = await admin()
        .get(`/admin/v1/companies?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    const ids = seen.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Oldest first: the three just made come in the order they were made (on PostgreSQL other
    // test files create companies at the same time, so others may come between and after them).
    const positions = made.map((c) => ids.indexOf(c.id));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(seen[positions[2]]).toMatchObject({
      id: made[2].id,
      timezone: expect.any(String),
      credits: expect.any(Number),
    });

    const co = made[0];
    const added = await admin()
      .post(`/admin/v1/companies/${co.id}/team`)
      .send({ name: 'Zed Last', role: 'Technician' })
      .expect(201);
    const first = await admin().get(`/admin/v1/companies/${co.id}/team?limit=1`).expect(200);
    expect(first.body.data).toEqual([
      {
        id: co.people[0].id,
        name: co.people[0].name,
        role: expect.any(String),
        email: null,
        responsibilities: [],
      },
    ]);
    const rest = await admin()
      .get(`/admin/v1/companies/${co.id}/team?cursor=${first.body.next_cursor}`)
      .expect(200);
    expect(rest.body.next_cursor).toBeNull();
    expect(rest.body.data.at(-1)).toEqual({
      id: added.body.id,
      name: 'Zed Last',
      role: 'Technician',
      email: null,
      responsibilities: [],
    });
    expect([...first.body.data, ...rest.body.data].map((p: { id: string }) => p.id)).toEqual([
      ...co.people.map((p) => p.id),
      added.body.id,
    ]);
  });

  it('answers 404 for an unknown company, 400 for a bad limit or cursor, 401 for a wrong token', async () => {
    expect((await admin().get('/admin/v1/companies/co_nope/team').expect(404)).body.code).toBe('not_found');
    expect((await admin().get('/admin/v1/companies?limit=101').expect(400)).body.errors[0].path).toBe(
      '/query/limit',
    );
    expect((await admin().get('/admin/v1/companies?cursor=bogus').expect(400)).body.errors[0].path).toBe(
      '/query/cursor',
    );
    const wrong = 'Bearer not-the-admin-token-at-all';
    expect((await t.http.get('/admin/v1/companies').set('Authorization', wrong).expect(401)).body.code).toBe(
      'unauthorized',
    );
    const co = await createCompany(t);
    await t.http.get(`/admin/v1/companies/${co.id}/team`).set('Authorization', wrong).expect(401);
    await t.http
      .get(`/admin/v1/companies/${co.id}/team`)
      .set('Authorization', `Bearer ${co.writeKey}`)
      .expect(401);
  });
});
