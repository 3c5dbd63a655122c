/** The admin CLI over the admin API: companies, team, keys, assistants, sign-in links, credits, elevation and program profiles; its exit codes and messages. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import path from 'node:path';
import { ADMIN_TOKEN, as, createCompany, startApp, type TestApp } from '../support/app';
import { exchange, mcpCall, tokensFor } from '../support/oauth';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
let t: TestApp;
const admin = () => ({
  put: (p: string) => t.http.put(p).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
});

beforeAll(async () => {
  t = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
});
afterAll(() => t.close());

describe('the admin CLI (admin_set_elevation through the API too)', () => {
  const cli = (...args: string[]) =>
    run(path.join(root, 'node_modules', '.bin', 'tsx'), ['src/transports/cli/admin-cli.ts', ...args], {
      cwd: root,
      env: { ...process.env, JMS_URL: t.url, ADMIN_TOKEN },
    });

  it('creates a company, a team member and a key, and lists keys', async () => {
    const company = JSON.parse(
      (await cli('companies', 'create', '--name', 'CLI Restoration', '--credits', '4')).stdout,
    );
    expect(company).toMatchObject({ name: 'CLI Restoration', credits: 4 });
    const person = JSON.parse(
      (
        await cli(
          'team',
          'add',
          '--company',
          company.id,
          '--name',
          'Lee Park',
          '--role',
          'Technician',
          '--does',
          'inspections, drying checks',
        )
      ).stdout,
    );
    expect(person.responsibilities).toEqual(['inspections', 'drying checks']);
    const changed = JSON.parse(
      (await cli('team', 'set', '--company', company.id, '--person', person.id, '--does', 'estimates'))
        .stdout,
    );
    expect(changed).toMatchObject({ id: person.id, role: 'Technician', responsibilities: ['estimates'] });
    const key = JSON.parse(
      (await cli('keys', 'create', '--company', company.id, '--person', person.id, '--scope', 'write'))
        .stdout,
    );
    expect(key.key).toMatch(/^jms_/);
    await as(t, key.key).get('/api/v1/context').expect(200);
    const keys = JSON.parse((await cli('keys', 'list', '--company', company.id)).stdout);
    expect(keys.data).toEqual([
      expect.objectContaining({ id: key.id, scope: 'write', person: { id: person.id, name: 'Lee Park' } }),
    ]);
  });

  it('makes a sign-in link, lists the assistants approved with it and revokes one', async () => {
    const co = await createCompany(t);
    const link = JSON.parse(
      (
        await cli(
          'sign-in',
          'link',
          '--company',
          co.id,
          '--person',
          co.people[2].id,
          '--scope',
          'read',
          '--expires-in',
          '600',
        )
      ).stdout,
    );
    expect(link).toMatchObject({
      url: expect.stringContaining('/oauth/sign-in?code=jms_si_'),
      scope: 'read',
      person: { id: co.people[2].id },
    });
    const tokens = await tokensFor(t, co.writeKey, { clientName: 'CLI Listed Bot' });
    const listed = JSON.parse((await cli('assistants', 'list', '--company', co.id)).stdout);
    expect(listed.data).toEqual([
      expect.objectContaining({
        client: expect.objectContaining({ name: 'CLI Listed Bot' }),
        scope: 'write',
        revoked_at: null,
      }),
    ]);
    expect(
      JSON.parse((await cli('assistants', 'revoke', '--company', co.id, listed.data[0].id)).stdout),
    ).toEqual({ status: 204 });
    await mcpCall(t, tokens.access_token, 'tools/list').expect(401);
  });

  it('lists as revoked a grant whose key was rotated, and one whose refresh token was used twice', async () => {
    const co = await createCompany(t);
    const key = JSON.parse(
      (await cli('keys', 'create', '--company', co.id, '--person', co.people[1].id, '--scope', 'write'))
        .stdout,
    );
    await tokensFor(t, key.key, { clientName: 'CLI Key Bot' });
    const reused = await tokensFor(t, co.writeKey, { clientName: 'CLI Reused Bot' });
    const refresh = () =>
      exchange(t, {
        grant_type: 'refresh_token',
        refresh_token: reused.refresh_token,
        client_id: reused.clientId,
      });
    await refresh().expect(200);
    await refresh().expect(400);
    await cli('keys', 'rotate', key.id);
    const listed = JSON.parse((await cli('assistants', 'list', '--company', co.id)).stdout);
    const line = (name: string) =>
      listed.data.find((g: { client: { name: string } }) => g.client.name === name);
    expect(line('CLI Key Bot')).toMatchObject({ revoked_at: expect.any(String), ended_by_key: true });
    expect(line('CLI Reused Bot')).toMatchObject({ revoked_at: expect.any(String), ended_by_key: false });
  });

  it('manages webhook endpoints: create (the secret printed once), list, pause, resume, rotate, replay, attempts, delete', async () => {
    const co = await createCompany(t);
    const url = 'http://127.0.0.1:9/hook';
    const made = JSON.parse(
      (
        await cli(
          'webhooks',
          'create',
          '--company',
          co.id,
          '--url',
          url,
          '--events',
          'job.created, notes',
          '--description',
          'CRM',
        )
      ).stdout,
    );
    expect(made).toMatchObject({
      url,
      events: ['job.created', 'notes'],
      description: 'CRM',
      status: 'active',
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = JSON.parse((await cli('webhooks', 'list', '--company', co.id)).stdout);
    expect(listed.data).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
    expect(JSON.parse((await cli('webhooks', 'pause', '--company', co.id, made.id)).stdout).status).toBe(
      'paused',
    );
    expect(JSON.parse((await cli('webhooks', 'resume', '--company', co.id, made.id)).stdout).status).toBe(
      'active',
    );
    expect(
      JSON.parse((await cli('webhooks', 'set', '--company', co.id, made.id, '--events', 'notes')).stdout)
        .events,
    ).toEqual(['notes']);
    const rotated = JSON.parse(
      (await cli('webhooks', 'rotate', '--company', co.id, made.id, '--grace-seconds', '60')).stdout,
    );
    expect(rotated.secret).not.toBe(made.secret);
    expect(
      JSON.parse(
        (await cli('webhooks', 'replay', '--company', co.id, made.id, '--since', '2026-01-01T00:00:00Z'))
          .stdout,
      ),
    ).toEqual({ events: 0 });
    expect(JSON.parse((await cli('webhooks', 'attempts', '--company', co.id, made.id)).stdout)).toEqual({
      data: [],
      next_cursor: null,
    });
    expect(JSON.parse((await cli('webhooks', 'delete', '--company', co.id, made.id)).stdout)).toEqual({
      status: 204,
    });
  });

  it('exits 1 with the problem on stderr', async () => {
    const failure = await cli('team', 'add', '--company', 'co_missing', '--name', 'X', '--role', 'Y').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining('404 not_found') });
    const usage = await cli('keys', 'create', '--company', 'co_x').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(usage).toMatchObject({ code: 1, stderr: expect.stringContaining('--person is required') });
  });

  it('lists companies and a team, a page at a time', async () => {
    const co = await createCompany(t);
    // Oldest first, and other test files make companies too: the new one may be on a later page.
    const ids: string[] = [];
    for (let cursor: string | null = null; ; ) {
      const page: { data: { id: string }[]; next_cursor: string | null } = JSON.parse(
        (await cli('companies', 'list', '--limit', '100', ...(cursor ? ['--cursor', cursor] : []))).stdout,
      );
      ids.push(...page.data.map((c) => c.id));
      if (!page.next_cursor || ids.includes(co.id)) break;
      cursor = page.next_cursor;
    }
    expect(ids).toContain(co.id);
    const team = JSON.parse((await cli('team', 'list', '--company', co.id, '--limit', '1')).stdout);
    expect(team.data).toEqual([expect.objectContaining({ id: co.people[0].id })]);
    const next = JSON.parse(
      (await cli('team', 'list', '--company', co.id, '--cursor', team.next_cursor)).stdout,
    );
    expect(next.data.map((p: { id: string }) => p.id)).toEqual(co.people.slice(1).map((p) => p.id));
  });

  it('prints each wrong field of a problem', async () => {
    const failure = await cli('companies', 'create', '--name', 'X', '--timezone', 'Mars/Olympus').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /400 invalid_request: .*\n {2}\/body\/timezone: must be an IANA timezone/,
      ),
    });
  });

  it('keeps carrier program profiles from a JSON file: create, list, show, replace, delete; a bad rule names its field', async () => {
    const co = await createCompany(t);
    const dir = await mkdtemp(path.join(tmpdir(), 'jms-profile-'));
    const file = path.join(dir, 'profile.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'Sedgwick',
        carriers: ['Sedgwick'],
        rules: [{ kind: 'photos_per_room', min_photos: 3 }],
      }),
    );
    const made = JSON.parse((await cli('profiles', 'create', '--company', co.id, '--file', file)).stdout);
    expect(made).toMatchObject({
      id: expect.stringMatching(/^prg_/),
      name: 'Sedgwick',
      carriers: ['Sedgwick'],
    });
    expect(JSON.parse((await cli('profiles', 'list', '--company', co.id)).stdout).data).toEqual([made]);
    expect(JSON.parse((await cli('profiles', 'show', '--company', co.id, made.id)).stdout)).toEqual(made);
    await writeFile(
      file,
      JSON.stringify({ name: 'Sedgwick', carriers: [], rules: [{ kind: 'photos_per_room' }] }),
    );
    const refused = await cli('profiles', 'replace', '--company', co.id, made.id, '--file', file).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /422 invalid_program_profile: .*\n {2}\/body\/rules\/0\/min_photos: must have required property/,
      ),
    });
    await writeFile(file, JSON.stringify({ name: 'Sedgwick 2027', carriers: [], rules: [] }));
    expect(
      JSON.parse((await cli('profiles', 'replace', '--company', co.id, made.id, '--file', file)).stdout).name,
    ).toBe('Sedgwick 2027');
    expect(JSON.parse((await cli('profiles', 'delete', '--company', co.id, made.id)).stdout)).toEqual({
      status: 204,
    });
    const gone = await cli('profiles', 'show', '--company', co.id, made.id).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(gone).toMatchObject({ code: 1, stderr: expect.stringContaining('404 not_found') });
    await writeFile(file, 'not json');
    const notJson = await cli('profiles', 'create', '--company', co.id, '--file', file).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(notJson).toMatchObject({ code: 1, stderr: expect.stringContaining('is not JSON') });
    await rm(dir, { recursive: true });
  });

  it('takes a negative number as a value: credits add --add -3', async () => {
    const co = await createCompany(t);
    const answer = JSON.parse((await cli('credits', 'add', '--company', co.id, '--add', '-3')).stdout);
    expect(answer).toEqual({ credits: 2 }); // createCompany starts with 5
  });

  it('sets the elevation that drying logs compute the air at: 5,000 ft raises GPP by about 20%', async () => {
    const co = await createCompany(t, { credits: 2 });
    const job = (await as(t, co.writeKey).post('/api/v1/jobs').send({ operation_id: 'elev-job' }).expect(201))
      .body;
    const air = {
      operation_id: 'elev-read',
      day: 1,
      area: 'Kitchen',
      readings: [
        { metric: 'temp_f', value: 70 },
        { metric: 'rh_pct', value: 50 },
      ],
    };
    await as(t, co.writeKey).post(`/api/v1/jobs/${job.id}/drying-log/readings`).send(air).expect(201);
    const gpp = async () =>
      (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body.areas[0].air
        .gpp as number;
    const atSeaLevel = await gpp();
    expect(JSON.parse((await cli('elevation', 'set', '--company', co.id, '--feet', '5000')).stdout)).toEqual({
      elevation_ft: 5000,
    });
    const log = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/drying-log`).expect(200)).body;
    expect({ feet: log.elevation_ft, source: log.elevation_source, pressure: log.pressure_inhg }).toEqual({
      feet: 5000,
      source: 'company',
      pressure: 24.9,
    });
    expect((await gpp()) / atSeaLevel).toBeCloseTo(1.2, 1);
    // A log's own elevation wins over the company's; null gives it back.
    await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
      .send({ operation_id: 'elev-own', elevation_ft: 0 })
      .expect(200);
    expect(await gpp()).toBe(atSeaLevel);
    await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
      .send({ operation_id: 'elev-back', elevation_ft: null })
      .expect(200);
    expect((await gpp()) / atSeaLevel).toBeCloseTo(1.2, 1);
    await admin().put('/admin/v1/companies/co_missing/elevation').send({ elevation_ft: 10 }).expect(404);
    const wrong = await admin()
      .put(`/admin/v1/companies/${co.id}/elevation`)
      .send({ elevation_ft: 30000 })
      .expect(400);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ path: '/body/elevation_ft' })]);
  });

  it('says it cannot reach the service when nothing answers at JMS_URL', async () => {
    // A port that was free a moment ago: nothing listens there (fetch refuses well-known ports such as 9 outright).
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const down = `http://127.0.0.1:${port}`;
    const failure = await run(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      ['src/transports/cli/admin-cli.ts', 'companies', 'list'],
      { cwd: root, env: { ...process.env, JMS_URL: down, ADMIN_TOKEN } },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`cannot reach the service at ${down} (ECONNREFUSED)`),
    });
  });
});
