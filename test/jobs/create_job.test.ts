import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('create_job', () => {
  it('creates a job in the first status with the customer, assignee and referral source', async () => {
    const res = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({
        operation_id: opId(),
        customer_name: 'Maria Alvarez',
        customer_phone: '(555) 201-3344',
        customer_email: 'maria@example.com',
        address_line1: '412 Birch Lane',
        city: 'Springfield',
        region: 'IL',
        postal_code: '62704',
        loss_type: 'water',
        carrier: 'State Farm',
        claim_number: 'SF-22-118734',
        policy_number: 'HO-1',
        referral_source: 'plumber',
        assignee: 'dana brooks',
      })
      .expect(201);
    expect(res.body).toMatchObject({
      job_number: 1,
      title: 'Maria Alvarez - water',
      status: 'New',
      customer_name: 'Maria Alvarez',
      address: '412 Birch Lane, Springfield, IL 62704',
      referral_source: 'Plumber',
      claim: { carrier: 'State Farm', claim_number: 'SF-22-118734', policy_number: 'HO-1', adjuster: null },
      people: [
        { name: 'Maria Alvarez', role: 'customer', phone: '(555) 201-3344', email: 'maria@example.com' },
      ],
      assignees: [{ name: 'Dana Brooks' }],
      created_by: { name: 'Avery Stone' },
      cancellation: null,
      photo_count: 0,
    });
    expect(res.body.id).toMatch(/^job_/);
  });

  it('answers exactly what get_job then reads back, with or without a customer and assignee', async () => {
    const bodies = [
      {
        customer_name: 'Priya Shah',
        customer_phone: '555.301.4455',
        city: 'Tacoma',
        region: 'WA',
        loss_type: 'mold',
        assignee: 'Sam',
        claim_number: 'AL-9',
      },
      { customer_email: 'someone@example.com' },
      { title: 'Warehouse roof', address_line1: '9 Mill St', referral_source: 'plumber' },
    ];
    for (const body of bodies) {
      const created = await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), ...body })
        .expect(201);
      const read = await as(t, co.readKey).get(`/api/v1/jobs/${created.body.id}`).expect(200);
      const { possible_duplicates: duplicates, ...job } = created.body;
      expect(job).toEqual(read.body);
      expect(duplicates).toEqual([]);
    }
  });

  it('is taken back whole by undo: job, customer, link and assignee', async () => {
    const own = await createCompany(t);
    const created = await as(t, own.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Undo Me', assignee: 'Sam' })
      .expect(201);
    await as(t, own.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    await as(t, own.readKey).get(`/api/v1/jobs/${created.body.id}`).expect(404);
    for (const table of ['jobs', 'contacts', 'job_contacts', 'job_assignees']) {
      expect(await t.db(table).where({ company_id: own.id }).count({ n: '*' }).first()).toEqual({ n: 0 });
    }
  });
});
