/**
 * Bad inputs, as a user sends them (issue #11): each kind of input has one rule, enforced for
 * every operation and both transports, and answered 400 `invalid_request` naming the field, with
 * nothing saved. Also what the spec promises about them: every operation documents the answers
 * it can give, and the rules are written where a client can read them.
 */
import type { Response } from 'supertest';
import { operations } from '../../src/generated/operations';
import spec from '../../src/generated/openapi.json';
import {
  ADMIN_TOKEN,
  as,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';
import { loadOperations, type Schema } from '../support/fuzz/operations';

let t: TestApp;
let co: TestCompany;
let job: { id: string; job_number: number };

const admin = {
  get: (path: string) => t.http.get(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  post: (path: string) => t.http.post(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  put: (path: string) => t.http.put(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  patch: (path: string) => t.http.patch(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
};

/** A 400 invalid_request whose errors name exactly these fields (a field may break several rules). */
function expectInvalid(res: Response, paths: string[]): void {
  expect({ status: res.status, type: res.headers['content-type'], code: res.body.code }).toEqual({
    status: 400,
    type: expect.stringMatching(/^application\/problem\+json/),
    code: 'invalid_request',
  });
  expect([...new Set((res.body.errors as { path: string }[]).map((e) => e.path))].sort()).toEqual(
    [...paths].sort(),
  );
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const count = async (table: string, where: Record<string, unknown>): Promise<number> =>
  Number((await t.db(table).where(where).count<{ n: string | number }[]>('* as n'))[0].n);
const feedLength = () => count('change_entries', { company_id: co.id });

async function mcp(
  key: string,
  name: string,
  args: unknown,
): Promise<{ error?: { code: number }; result?: { isError?: boolean; content: { text: string }[] } }> {
  const res = await t.http
    .post('/mcp')
    .set('Authorization', `Bearer ${key}`)
    .set('Accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
    .expect(200);
  return res.body;
}

/** The problem of an isError tool result. */
async function mcpProblem(
  name: string,
  args: unknown,
): Promise<{ code: string; errors?: { path: string }[] }> {
  const message = await mcp(co.writeKey, name, args);
  expect(message.error).toBeUndefined();
  expect(message.result?.isError).toBe(true);
  return JSON.parse(message.result!.content[0].text);
}

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 10 });
  job = (
    await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .send({ operation_id: opId(), customer_name: 'Input Ivy' })
      .expect(201)
  ).body;
});
afterAll(() => t.close());

describe('text: a lone surrogate', () => {
  it('is stored as U+FFFD, and the change feed and undo still work', async () => {
    // Written by hand: JSON.stringify would escape it the same way, but this is what a client sends.
    const body = `{"operation_id":"${opId()}","carrier":"Acme \\udfff Mutual","claim_number":"C-\\ud83d"}`;
    const res = await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/overview`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(200);
    expect(res.body.claim).toMatchObject({ carrier: 'Acme \ufffd Mutual', claim_number: 'C-\ufffd' });
    const undone = (await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: opId() }).expect(200))
      .body;
    expect(undone.undone.tool).toBe('update_job_overview');
  });
});

describe('text: NUL (U+0000) is refused in every string, naming the field', () => {
  it('in body fields at any depth, query parameters, path parameters and operation_id, and nothing is saved', async () => {
    const w = as(t, co.writeKey);
    const jobsBefore = await count('jobs', { company_id: co.id });
    const feedBefore = await feedLength();
    expectInvalid(
      await w.post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Nul\u0000Nancy' }),
      ['/body/customer_name'],
    );
    expectInvalid(await w.post('/api/v1/jobs').send({ operation_id: 'op\u0000', customer_name: 'Nancy' }), [
      '/body/operation_id',
    ]);
    expectInvalid(
      await w.post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: 'a\u0000b' }),
      ['/body/text'],
    );
    expectInvalid(
      await w
        .post(`/api/v1/jobs/${job.id}/contacts`)
        .send({ operation_id: opId(), name: 'Ann', address: { line1: '1 Main\u0000', city: 'X\u0000' } }),
      ['/body/address/line1', '/body/address/city'],
    );
    expectInvalid(await as(t, co.readKey).get('/api/v1/jobs?q=%00alvarez'), ['/query/q']);
    expectInvalid(await as(t, co.readKey).get('/api/v1/standards/search?q=water%00'), ['/query/q']);
    expectInvalid(await w.delete(`/api/v1/jobs/${job.id}/assignees/Dana%00?operation_id=${opId()}`), [
      '/path/person',
    ]);
    expectInvalid(await w.delete(`/api/v1/jobs/${job.id}/assignees/Dana%20Brooks?operation_id=x%00`), [
      '/query/operation_id',
    ]);
    expectInvalid(
      await admin.put(`/admin/v1/companies/${co.id}/statuses`).send({ statuses: ['New', 'Dry\u0000ing'] }),
      ['/body/statuses/1'],
    );
    expect(await count('jobs', { company_id: co.id })).toBe(jobsBefore);
    expect(await feedLength()).toBe(feedBefore);
  });

  it('a NUL in one line of an estimate saves no estimate and uses no credit', async () => {
    const credits = (await as(t, co.readKey).get('/api/v1/context').expect(200)).body.credits.remaining;
    const res = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/estimates`)
      .send({
        operation_id: opId(),
        line_items: [
          { code: 'DRY-AM-STD', quantity: 1 },
          { description: 'Haul\u0000', unit: 'EA', quantity: 1, unit_price_cents: 100 },
        ],
      });
    expectInvalid(res, ['/body/line_items/1/description']);
    expect(await count('estimates', { company_id: co.id })).toBe(0);
    expect((await as(t, co.readKey).get('/api/v1/context').expect(200)).body.credits.remaining).toBe(credits);
  });

  it('other control characters are kept as sent', async () => {
    const text = 'tab\there\u0001\u001f\u007f\u2028end';
    const note = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/notes`)
      .send({ operation_id: opId(), text })
      .expect(201);
    expect(note.body.text).toBe(text);
  });

  it('over MCP too, naming the argument', async () => {
    const problem = await mcpProblem('find_jobs', { q: 'a\u0000' });
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors?.map((e) => e.path)).toEqual(['/q']);
    const nested = await mcpProblem('add_line_items', {
      estimate_id: 'est_x',
      operation_id: opId(),
      line_items: [{ description: 'x\u0000', unit: 'EA', quantity: 1, unit_price_cents: 1 }],
    });
    expect(nested.errors?.map((e) => e.path)).toEqual(['/line_items/0/description']);
  });
});

describe('calendar dates: real days from 0001-01-01 to 9999-12-31', () => {
  it.each([
    '2024-02-30',
    '2023-02-29',
    '1900-02-29',
    '2024-13-01',
    '2024-00-10',
    '2024-01-32',
    '0000-01-01',
    '10000-01-01',
    '2024-2-3',
  ])('refuses %s in a query and in a body', async (day) => {
    expectInvalid(await as(t, co.readKey).get(`/api/v1/jobs?created_from=${day}`), ['/query/created_from']);
    const res = await as(t, co.writeKey)
      .patch(`/api/v1/jobs/${job.id}/overview`)
      .send({ operation_id: opId(), date_of_loss: day });
    expect(res.status).toBe(400);
    expect((res.body.errors as { path: string }[]).every((e) => e.path === '/body/date_of_loss')).toBe(true);
  });

  it('accepts the leap days and the edges of the range', async () => {
    for (const day of ['2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31']) {
      await as(t, co.readKey).get(`/api/v1/jobs?created_from=${day}&created_to=${day}`).expect(200);
      const res = await as(t, co.writeKey)
        .patch(`/api/v1/jobs/${job.id}/overview`)
        .send({ operation_id: opId(), date_of_loss: day })
        .expect(200);
      expect(res.body.date_of_loss).toBe(day);
    }
  });

  it('over MCP too', async () => {
    const problem = await mcpProblem('find_jobs', { created_to: '2024-02-30' });
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors?.map((e) => e.path)).toContain('/created_to');
  });
});

describe("emails: one rule, the spec's Email pattern, for every field that takes one", () => {
  const refused = [
    '0@com',
    'ann@localhost',
    '"ann lee"@example.com',
    'ann..lee@example.com',
    'ann@example.com.',
    'ann@[127.0.0.1]',
    'ann@exa_mple.com',
  ];
  const accepted = ["o'brien+claims@sub-1.example.co.uk", "!#$%&'*+/=?^_`{|}~-@x.io", 'A.B@EXAMPLE.COM'];
  const pattern = new RegExp((spec.components.schemas.Email as { pattern: string }).pattern, 'u');

  it('the spec states the rule: a pattern beside format: email, and a description naming a one-word domain', () => {
    for (const email of refused) expect([email, pattern.test(email)]).toEqual([email, false]);
    for (const email of accepted) expect([email, pattern.test(email)]).toEqual([email, true]);
    expect(spec.components.schemas.Email.description).toContain('`0@com`');
  });

  it.each(refused)(
    'refuses %s on create_job, add_contact, update_contact and the team, naming the field; nothing is saved',
    async (email) => {
      const w = as(t, co.writeKey);
      const jobsBefore = await count('jobs', { company_id: co.id });
      const contact = (
        await w
          .post(`/api/v1/jobs/${job.id}/contacts`)
          .send({ operation_id: opId(), name: 'Mail Mo' })
          .expect(200)
      ).body.contact;
      const answers = [
        await w
          .post('/api/v1/jobs')
          .send({ operation_id: opId(), customer_name: 'Em', customer_email: email }),
        await w.post(`/api/v1/jobs/${job.id}/contacts`).send({ operation_id: opId(), name: 'Em', email }),
        await w.patch(`/api/v1/jobs/${job.id}/contacts/${contact.id}`).send({ operation_id: opId(), email }),
        await admin.post(`/admin/v1/companies/${co.id}/team`).send({ name: 'Em', role: 'Tech', email }),
        await admin.patch(`/admin/v1/companies/${co.id}/team/${co.people[0].id}`).send({ email }),
      ];
      const fields = ['customer_email', 'email', 'email', 'email', 'email'];
      answers.forEach((res, i) => {
        expectInvalid(res, [`/body/${fields[i]}`]);
        // One clear message, not the pattern's text.
        expect(res.body.errors).toEqual([
          { path: `/body/${fields[i]}`, message: 'must match format "email"' },
        ]);
      });
      expect(await count('jobs', { company_id: co.id })).toBe(jobsBefore);
      expect(await count('contacts', { company_id: co.id, email })).toBe(0);
    },
  );

  it('accepts the edges of the rule as sent', async () => {
    for (const email of accepted) {
      const res = await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Edge Ed', customer_email: email })
        .expect(201);
      expect(res.body.people[0].email).toBe(email);
    }
  });

  it('over MCP too, naming the argument', async () => {
    const problem = await mcpProblem('add_contact', {
      job_id: job.id,
      operation_id: opId(),
      name: 'Em',
      email: '0@com',
    });
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors).toEqual([{ path: '/email', message: 'must match format "email"' }]);
  });
});

describe('cursors: anything but a next_cursor of the list is a 400 naming /query/cursor', () => {
  it.each([
    ['/api/v1/jobs', { before: 2147483648 }],
    ['/api/v1/jobs', { before: 1e21 }],
    [`/api/v1/jobs/JOB/activity`, { before: 2 ** 53 }],
    ['/api/v1/changes', { txid: 2 ** 63, seq: 1 }],
    ['/api/v1/changes', { txid: 1, seq: '2' }],
    ['/api/v1/price-list?q=drywall', { offset: 1e21 }],
    ['/api/v1/customers?q=a', { name: '\u0000', id: 'con_x' }],
    ['/api/v1/customers?q=a', { name: 5, id: 6 }],
  ])('%s with %j', async (list, position) => {
    const path = list.replace('JOB', job.id);
    const res = await as(t, co.readKey).get(
      `${path}${path.includes('?') ? '&' : '?'}cursor=${b64(position)}`,
    );
    expectInvalid(res, ['/query/cursor']);
  });

  it('an empty cursor or status is refused as the spec says (minLength 1), not taken as absent', async () => {
    expectInvalid(await as(t, co.readKey).get('/api/v1/jobs?cursor='), ['/query/cursor']);
    expectInvalid(await as(t, co.readKey).get('/api/v1/jobs?status='), ['/query/status']);
    const cursor = spec.components.parameters.Cursor.schema as Schema;
    expect(cursor.minLength).toBe(1);
  });

  it('the cursors the lists give out still work', async () => {
    for (let i = 0; i < 3; i++)
      await as(t, co.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: `Paged ${i}` })
        .expect(201);
    const first = await as(t, co.readKey).get('/api/v1/jobs?limit=2').expect(200);
    const second = await as(t, co.readKey)
      .get(`/api/v1/jobs?limit=2&cursor=${first.body.next_cursor}`)
      .expect(200);
    expect(second.body.data[0].job_number).toBeLessThan(first.body.data[1].job_number);
    const feed = await as(t, co.readKey).get('/api/v1/changes?limit=1').expect(200);
    await as(t, co.readKey).get(`/api/v1/changes?cursor=${feed.body.next_cursor}`).expect(200);
  });
});

describe('admin_set_estimate_rates: money and rates', () => {
  it('rates with two decimals are accepted as sent (8.2, 4.35, 2.51, 0.07); more decimals round half up', async () => {
    const own = await createCompany(t);
    const set = (rates: Record<string, number>) =>
      admin.put(`/admin/v1/companies/${own.id}/estimate-rates`).send(rates);
    expect((await set({ overhead_pct: 8.2, profit_pct: 4.35, tax_pct: 2.51 }).expect(200)).body).toEqual({
      overhead_pct: 8.2,
      profit_pct: 4.35,
      tax_pct: 2.51,
    });
    expect((await set({ overhead_pct: 0.07, profit_pct: 100, tax_pct: 6.255 }).expect(200)).body).toEqual({
      overhead_pct: 0.07,
      profit_pct: 100,
      tax_pct: 6.26,
    });
    expectInvalid(await set({ overhead_pct: 100.01, profit_pct: 0, tax_pct: -1 }), [
      '/body/overhead_pct',
      '/body/tax_pct',
    ]);
  });

  it('no schema of the spec uses a fractional multipleOf (validators check it in floating point)', () => {
    const fractional: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) walk(item, `${at}/${i}`);
      } else if (node && typeof node === 'object') {
        const value = (node as Schema).multipleOf;
        if (typeof value === 'number' && !Number.isInteger(value)) fractional.push(at);
        for (const [key, item] of Object.entries(node)) walk(item, `${at}/${key}`);
      }
    };
    walk(spec, '#');
    expect(fractional).toEqual([]);
  });

  it('a unit price past $1,000,000 is refused naming the field; nothing is added', async () => {
    const estimate = (
      await as(t, co.writeKey)
        .post(`/api/v1/jobs/${job.id}/estimates`)
        .send({ operation_id: opId() })
        .expect(201)
    ).body.estimate;
    const add = (line: Record<string, unknown>) =>
      as(t, co.writeKey)
        .post(`/api/v1/estimates/${estimate.id}/line-items`)
        .send({
          operation_id: opId(),
          line_items: [{ description: 'Big', unit: 'EA', quantity: 1, ...line }],
        });
    for (const unit_price of ['999999999.99', '1000000.01', 1e21, 2147483648, -1, '12.345']) {
      const res = await add({ unit_price });
      expect(res.status).toBe(400);
      expect(
        (res.body.errors as { path: string }[]).every((e) =>
          e.path.startsWith('/body/line_items/0/unit_price'),
        ),
      ).toBe(true);
    }
    expectInvalid(await add({ unit_price_cents: 2147483648 }), ['/body/line_items/0/unit_price_cents']);
    expect(await count('estimate_lines', { estimate_id: estimate.id })).toBe(0);
    const top = await add({ unit_price: '1000000.00' }).expect(200);
    expect(top.body.added[0].unit_price_cents).toBe(100_000_000);
    expect((await add({ unit_price: 12.5 }).expect(200)).body.added[0].unit_price_cents).toBe(1250);
  });
});

describe('admin: credits and timezones', () => {
  it('credits of 2147483648 or 1e21 at creation are refused naming /body/credits', async () => {
    for (const credits of [2147483648, 1e21, 1000000001]) {
      expectInvalid(await admin.post('/admin/v1/companies').send({ name: 'Too Rich', credits }), [
        '/body/credits',
      ]);
    }
    expect(await count('companies', { name: 'Too Rich' })).toBe(0);
  });

  it('adding credits past the limit is refused naming /body/add, and the balance is unchanged', async () => {
    const rich = (
      await admin.post('/admin/v1/companies').send({ name: 'Nearly Full', credits: 999_999_999 }).expect(201)
    ).body;
    expectInvalid(await admin.post(`/admin/v1/companies/${rich.id}/credits`).send({ add: 2 }), ['/body/add']);
    expect(
      (await admin.post(`/admin/v1/companies/${rich.id}/credits`).send({ add: 1 }).expect(200)).body.credits,
    ).toBe(1_000_000_000);
    expectInvalid(await admin.post(`/admin/v1/companies/${rich.id}/credits`).send({ add: 1 }), ['/body/add']);
    expect(
      (await admin.post(`/admin/v1/companies/${rich.id}/credits`).send({ add: -1_000_000 }).expect(200)).body
        .credits,
    ).toBe(999_000_000);
    await admin.post('/admin/v1/companies/co_doesnotexist/credits').send({ add: 1 }).expect(404);
  });

  it('a timezone JavaScript accepts but PostgreSQL does not (US/Pacific-New) is refused naming /body/timezone', async () => {
    for (const timezone of ['US/Pacific-New', 'Mars/Olympus', 'America/Chicago\u0000']) {
      expectInvalid(await admin.post('/admin/v1/companies').send({ name: 'Zoned', timezone }), [
        '/body/timezone',
      ]);
    }
    expect(await count('companies', { name: 'Zoned' })).toBe(0);
  });

  it('a known timezone is stored in its canonical spelling, and date filters work in it', async () => {
    const company = (
      await admin
        .post('/admin/v1/companies')
        .send({ name: 'Lower Case Co', timezone: 'europe/paris' })
        .expect(201)
    ).body;
    expect(company.timezone).toBe('Europe/Paris');
    const person = (
      await admin
        .post(`/admin/v1/companies/${company.id}/team`)
        .send({ name: 'Pat', role: 'Owner' })
        .expect(201)
    ).body;
    const key = (
      await admin
        .post(`/admin/v1/companies/${company.id}/keys`)
        .send({ person_id: person.id, scope: 'read' })
        .expect(201)
    ).body.key;
    await as(t, key).get('/api/v1/jobs?created_from=2024-01-01&drying=active').expect(200);
  });
});

describe('rules the spec states instead of the service refusing what the spec allowed', () => {
  it('a name given twice to the board or the referral sources is a 400 naming the list, whatever its case', async () => {
    const own = await createCompany(t);
    for (const statuses of [
      ['New', 'New'],
      ['New', 'new '],
      ['Drying', 'drying'],
    ]) {
      expectInvalid(await admin.put(`/admin/v1/companies/${own.id}/statuses`).send({ statuses }), [
        '/body/statuses',
      ]);
    }
    expectInvalid(
      await admin
        .put(`/admin/v1/companies/${own.id}/referral-sources`)
        .send({ referral_sources: ['Web', 'web'] }),
      ['/body/referral_sources'],
    );
    const board =
      spec.paths['/admin/v1/companies/{company_id}/statuses'].put.requestBody.content['application/json']
        .schema.properties.statuses;
    expect(board.uniqueItems).toBe(true);
  });

  it('add_contact needs a name or a contact_id, and the spec says so', async () => {
    const res = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/contacts`)
      .send({ operation_id: opId(), role: 'tenant' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect((res.body.errors as { path: string }[]).map((e) => e.path)).toEqual(
      expect.arrayContaining(['/body/name', '/body/contact_id']),
    );
  });

  it('a PATCH that changes nothing answers the record as it is and records nothing', async () => {
    const w = as(t, co.writeKey);
    const contact = (
      await w
        .post(`/api/v1/jobs/${job.id}/contacts`)
        .send({ operation_id: opId(), name: 'Same Sam' })
        .expect(200)
    ).body.contact;
    const estimate = (
      await w
        .post(`/api/v1/jobs/${job.id}/estimates`)
        .send({
          operation_id: opId(),
          rooms: [{ name: 'Den', length: 10 }],
          line_items: [{ description: 'Fan', unit: 'EA', quantity: 2, unit_price_cents: 500, room: 'Den' }],
        })
        .expect(201)
    ).body.estimate;
    const room = estimate.rooms[0];
    const line = room.lines[0];
    const feedBefore = await feedLength();
    const current = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}`).expect(200)).body;
    expect(
      (await w.patch(`/api/v1/jobs/${job.id}/overview`).send({ operation_id: opId() }).expect(200)).body,
    ).toEqual(current);
    await w.patch(`/api/v1/jobs/${job.id}/overview`).send({}).expect(200);
    expect(
      (
        await w
          .patch(`/api/v1/jobs/${job.id}/contacts/${contact.id}`)
          .send({ operation_id: opId() })
          .expect(200)
      ).body,
    ).toEqual(contact);
    await w.patch(`/api/v1/jobs/${job.id}/contacts/${contact.id}`).send({ name: 'Same Sam' }).expect(200);
    await w
      .patch(`/api/v1/estimates/${estimate.id}/rooms/${room.id}`)
      .send({ operation_id: opId() })
      .expect(200);
    await w.patch(`/api/v1/estimates/${estimate.id}/rooms/${room.id}`).send({ length: 10 }).expect(200);
    expect(
      (await w.patch(`/api/v1/estimates/${estimate.id}/line-items/${line.id}`).send({}).expect(200)).body
        .line,
    ).toEqual(line);
    await w.patch(`/api/v1/estimates/${estimate.id}/line-items/${line.id}`).send({ quantity: 2 }).expect(200);
    expect(await feedLength()).toBe(feedBefore);
    // A real change is still recorded.
    await w.patch(`/api/v1/estimates/${estimate.id}/rooms/${room.id}`).send({ length: 11 }).expect(200);
    expect(await feedLength()).toBe(feedBefore + 1);
  });

  it('statuses the service answers are documented: 422 on find_jobs, 400 for a malformed company id on the admin key list', async () => {
    const unknown = await as(t, co.readKey).get('/api/v1/jobs?status=NoSuchStatus').expect(422);
    expect(unknown.body.code).toBe('unknown_status');
    expect(Object.keys(spec.paths['/api/v1/jobs'].get.responses)).toContain('422');
    expectInvalid(await admin.get('/admin/v1/companies/not-a-company/keys'), ['/path/company_id']);
    expect(Object.keys(spec.paths['/admin/v1/companies/{company_id}/keys'].get.responses)).toContain('400');
  });

  it('a path that is not valid percent-encoding is a 400 naming the path', async () => {
    expectInvalid(await as(t, co.readKey).get('/api/v1/jobs/%FF'), ['/path']);
    expectInvalid(await as(t, co.readKey).get('/api/v1/jobs/%ZZ/activity'), ['/path']);
  });
});

describe('every operation documents the answers it can give', () => {
  it('400, 401, 429 and 500 everywhere; 404 with path ids and on admin; 403 on writes, 409 on writes but by GET; 413 and 415 with a body', async () => {
    const missing: string[] = [];
    for (const op of await loadOperations()) {
      const want = ['400', '401', '429', '500'];
      if (op.pathParams.length || op.scope === 'admin') want.push('404');
      if (op.scope === 'write') want.push('403');
      // A write by GET (get_photo_upload_link) takes no operation_id: nothing of it can conflict.
      if (op.scope === 'write' && op.method !== 'GET') want.push('409');
      if (op.body) want.push('413', '415');
      for (const status of want) if (!op.responses[status]) missing.push(`${op.name} ${status}`);
      // Every error answer is a problem.
      for (const [status, media] of Object.entries(op.responses)) {
        if (Number(status) >= 400 && !media['application/problem+json'])
          missing.push(`${op.name} ${status} is not application/problem+json`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every string query parameter needs at least one character (the validator refuses empty values)', async () => {
    const open: string[] = [];
    for (const op of await loadOperations()) {
      for (const param of op.queryParams) {
        const schema = param.schema;
        const strings = schema.type === 'string' && !schema.enum && !schema.pattern;
        if (strings && !(typeof schema.minLength === 'number' && schema.minLength >= 1))
          open.push(`${op.name} ${param.name}`);
      }
    }
    expect(open).toEqual([]);
  });
});

describe('MCP tools/call with arguments that are not an object', () => {
  it.each([[['x']], ['text'], [42], [true]])(
    '%j is an invalid_request problem in an isError result, not a JSON-RPC internal error',
    async (args) => {
      const message = await mcp(co.writeKey, 'get_job', args);
      expect(message.error).toBeUndefined();
      expect(message.result?.isError).toBe(true);
      const problem = JSON.parse(message.result!.content[0].text);
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors.length).toBeGreaterThan(0);
    },
  );

  it('a call without a tool name is a JSON-RPC invalid params error (-32602), not an internal one', async () => {
    const res = await t.http
      .post('/mcp')
      .set('Authorization', `Bearer ${co.writeKey}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } })
      .expect(200);
    expect(res.body.error.code).toBe(-32602);
  });

  it('read tools still answer over MCP', async () => {
    const message = await mcp(co.readKey, 'get_job', { job_id: job.id });
    expect(message.result?.isError).toBeFalsy();
    expect(operations.get_job.mcp).toBe(true);
  });
});
