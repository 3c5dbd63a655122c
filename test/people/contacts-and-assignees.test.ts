/** The people on a job: add_contact, update_contact and lookup_customer, and assign_job and unassign_job by a teammate's name. */
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { MARIA, openJob, readJob } from '../support/jobs';
import { callTool, connectMcp, problemOf } from '../support/mcp';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

const newJob = (key = co.writeKey, extra: Record<string, unknown> = {}) =>
  openJob(t, key, { ...MARIA, ...extra });
const getJob = (id: string, key = co.readKey) => readJob(t, key, id);

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

describe('add_contact, update_contact, lookup_customer, assign_job, unassign_job: people on a job', () => {
  it('adds, updates by the same name, links a known person, and finds them', async () => {
    const job = await newJob();
    const added = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), name: 'Priya Shah', phone: '312-555-0108', role: 'Adjuster' })
      .expect(200);
    expect(added.body).toMatchObject({
      outcome: 'added',
      contact: { name: 'Priya Shah', role: 'adjuster', phone: '312-555-0108' },
    });
    const again = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), name: 'priya SHAH', email: 'pshah@carrier.example' })
      .expect(200);
    expect(again.body).toMatchObject({
      outcome: 'updated',
      contact: { id: added.body.contact.id, name: 'Priya Shah', email: 'pshah@carrier.example' },
    });
    expect((await getJob(job.id)).people.map((p: { name: string }) => p.name)).toEqual([
      'Maria Alvarez',
      'Priya Shah',
    ]);

    const second = await newJob();
    const linked = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${second.id}/contacts`)
      .send({ operation_id: opId(), contact_id: added.body.contact.id, role: 'adjuster' })
      .expect(200);
    expect(linked.body).toMatchObject({
      outcome: 'linked',
      contact: { id: added.body.contact.id, phone: '312-555-0108' },
    });

    const found = (await as(t, co.readKey).get('/api/v1/customers?q=3125550108&role=adjuster').expect(200))
      .body.data;
    expect(found).toEqual([
      expect.objectContaining({
        id: added.body.contact.id,
        roles: ['adjuster'],
        jobs: expect.arrayContaining([
          expect.objectContaining({ id: job.id }),
          expect.objectContaining({ id: second.id }),
        ]),
      }),
    ]);
    expect(
      (await as(t, co.readKey).get('/api/v1/customers?q=pshah%40carrier').expect(200)).body.data,
    ).toHaveLength(1);
    const maria = (await as(t, co.readKey).get('/api/v1/customers?q=alvarez').expect(200)).body.data;
    expect(maria.length).toBeGreaterThan(0);
    expect(maria[0].roles).toEqual(['customer']);
    expect(
      (await as(t, co.readKey).get('/api/v1/customers?q=alvarez&role=tenant').expect(200)).body.data,
    ).toEqual([]);
    expect(
      (await as(t, co.readKey).get('/api/v1/jobs?q=3125550108').expect(200)).body.data
        .map((j: { id: string }) => j.id)
        .sort(),
    ).toEqual([job.id, second.id].sort());
  });

  it('update_contact changes the person everywhere and clears with null', async () => {
    const job = await newJob();
    const person = (await getJob(job.id)).people[0];
    const res = await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/contacts/${person.id}`)
      .send({ phone: null, email: 'maria@example.com', role: 'owner' })
      .expect(200);
    expect(res.body).toMatchObject({ id: person.id, phone: null, email: 'maria@example.com', role: 'owner' });
    await as(t, co.writeKey).patch(`/api/v1/jobs/${job.id}/contacts/${person.id}`).send({}).expect(200);
    await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/contacts/con_nobody`)
      .send({ name: 'X' })
      .expect(404);
    const theirs = await newJob(other.writeKey);
    const theirPerson = (await getJob(theirs.id, other.readKey)).people[0];
    await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/contacts/${theirPerson.id}`)
      .send({ name: 'X' })
      .expect(404);
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), contact_id: theirPerson.id })
      .expect(404);
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), phone: '1' })
      .expect(400);
    await as(t, co.readKey)
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), name: 'X' })
      .expect(403);
  });

  it('assigns and unassigns teammates by name', async () => {
    const job = await newJob();
    expect(
      (
        await as(t, co.writeKey)
          .post(`/api/v1/jobs/${job.id}/assignees`)
          .send({ teammate: 'sam' })
          .expect(200)
      ).body.assignees,
    ).toEqual([{ id: co.people[3].id, name: 'Sam Okafor' }]);
    await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/assignees`)
      .send({ teammate: 'Sam Okafor' })
      .expect(200);
    expect((await getJob(job.id)).assignees).toHaveLength(1);
    const ambiguous = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/assignees`)
      .send({ teammate: 'Dana' })
      .expect(422);
    expect(ambiguous.body).toMatchObject({
      code: 'ambiguous_teammate',
      valid_values: expect.arrayContaining(['Dana Brooks', 'Dana White']),
    });
    expect(
      (
        await as(t, co.writeKey)
          .post(`/api/v1/jobs/${job.id}/assignees`)
          .send({ teammate: 'Zed' })
          .expect(422)
      ).body.code,
    ).toBe('unknown_teammate');
    expect(
      (await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/assignees/SAM%20OKAFOR`).expect(200)).body
        .assignees,
    ).toEqual([]);
    expect(
      (await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/assignees/Sam%20Okafor`).expect(200)).body
        .assignees,
    ).toEqual([]);
    await as(t, co.writeKey).delete(`/api/v1/jobs/${job.id}/assignees/Nobody`).expect(422);
    await as(t, co.readKey).delete(`/api/v1/jobs/${job.id}/assignees/Sam%20Okafor`).expect(403);
  });
  it('assign_job and unassign_job both take the teammate as person (name or id); teammate is still taken', async () => {
    const job = await newJob();
    const assign = (body: Record<string, unknown>, key = co.writeKey, jobId = job.id) =>
      as(t, key).post(`/api/v1/jobs/${jobId}/assignees`).send(body);
    const sam = { id: co.people[3].id, name: 'Sam Okafor' };
    expect((await assign({ operation_id: opId(), person: 'sam' }).expect(200)).body.assignees).toEqual([sam]);
    expect((await assign({ person: sam.id }).expect(200)).body.assignees).toEqual([sam]);
    // The old name, alone or beside a person that says the same.
    const withDana = (await assign({ teammate: 'Dana Brooks' }).expect(200)).body.assignees as {
      name: string;
    }[];
    expect(withDana.map((a) => a.name).sort()).toEqual(['Dana Brooks', 'Sam Okafor']);
    await assign({ person: 'Dana Brooks', teammate: ' dana brooks' }).expect(200);
    // Beside a person that says otherwise: which one is meant is not known, and nothing changes.
    const both = await assign({ person: 'Avery', teammate: 'Dana White' }).expect(422);
    expect(both.body).toMatchObject({
      code: 'ambiguous_teammate',
      errors: [{ path: '/body/person' }, { path: '/body/teammate' }],
    });
    expect((await assign({}).expect(400)).body.errors).toEqual([
      expect.objectContaining({ path: '/body/person' }),
    ]);
    // Another company's teammate is unknown here; another company's job is not found; a read key may not.
    expect((await assign({ person: other.people[0].id }).expect(422)).body.code).toBe('unknown_teammate');
    await assign({ person: 'sam' }, other.writeKey).expect(404);
    await assign({ person: 'sam' }, co.readKey).expect(403);
    expect((await getJob(job.id)).assignees.map((a) => a.name).sort()).toEqual(['Dana Brooks', 'Sam Okafor']);
    // A replay answers the same; the same operation_id for another teammate is a conflict.
    const operation_id = opId();
    await as(t, co.writeKey)
      .delete(`/api/v1/jobs/${job.id}/assignees/${sam.id}?operation_id=${operation_id}`)
      .expect(200);
    const replay = await as(t, co.writeKey)
      .delete(`/api/v1/jobs/${job.id}/assignees/${sam.id}?operation_id=${operation_id}`)
      .expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await as(t, co.writeKey)
      .delete(`/api/v1/jobs/${job.id}/assignees/Dana%20Brooks?operation_id=${operation_id}`)
      .expect(409);
    const assignOp = opId();
    await assign({ operation_id: assignOp, person: 'sam' }).expect(200);
    expect(
      (await assign({ operation_id: assignOp, person: 'sam' }).expect(200)).headers['idempotent-replayed'],
    ).toBe('true');
    expect((await assign({ operation_id: assignOp, person: 'Avery' }).expect(409)).body.code).toBe(
      'operation_id_conflict',
    );

    const client = await connectMcp(t, co.writeKey);
    try {
      const tools = (await client.listTools()).tools.filter((tool) => tool.name.endsWith('assign_job'));
      // Both show the teammate as person; the old name is taken but not shown.
      expect(
        tools.map((tool) => [
          tool.name,
          Object.keys(tool.inputSchema.properties!).filter((k) => k !== 'operation_id'),
        ]),
      ).toEqual([
        ['assign_job', ['job_id', 'person']],
        ['unassign_job', ['job_id', 'person']],
      ]);
      const args = (extra: Record<string, unknown>) => ({
        job_id: job.job_number,
        operation_id: opId(),
        ...extra,
      });
      const called = await callTool(client, 'assign_job', args({ person: 'Avery' }));
      expect(
        (called.structuredContent as { assignees: { name: string }[] }).assignees.map((a) => a.name),
      ).toContain('Avery Stone');
      expect((await callTool(client, 'assign_job', args({ teammate: 'Dana White' }))).isError).toBeFalsy();
      expect(
        problemOf(await callTool(client, 'assign_job', args({ person: 'sam', teammate: 'Avery' }))),
      ).toMatchObject({
        status: 422,
        code: 'ambiguous_teammate',
      });
      const off = await callTool(client, 'unassign_job', args({ person: 'Dana White' }));
      expect(
        (off.structuredContent as { assignees: { name: string }[] }).assignees.map((a) => a.name),
      ).not.toContain('Dana White');
    } finally {
      await client.close();
    }
  });
});
