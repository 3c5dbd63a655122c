/**
 * Idempotent writes (DESIGN §5): the same operation_id with the same details replays the first
 * answer and saves nothing; other details are a 409; failed writes are not remembered; ids
 * belong to a company; truly concurrent requests save once.
 */
import type { Response } from 'supertest';
import { RecordedWrites } from '../../src/platform/undo';
import {
  as,
  atOnce,
  createCompany,
  feedSettled,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';

let t: TestApp;
let co: TestCompany;

interface Counts {
  jobs: number;
  contacts: number;
  changes: number;
  undo: number;
  records: number;
}

async function count(table: string, companyId: string): Promise<number> {
  const [row] = await t.db(table).where({ company_id: companyId }).count<{ n: string | number }[]>('* as n');
  return Number(row.n);
}

async function counts(companyId: string): Promise<Counts> {
  return {
    jobs: await count('jobs', companyId),
    contacts: await count('contacts', companyId),
    changes: await count('change_entries', companyId),
    undo: await count('undo_actions', companyId),
    records: await count('idempotency_records', companyId),
  };
}

const createJob = (key: string, body: Record<string, unknown>) => as(t, key).post('/api/v1/jobs').send(body);

function expectConflict(res: Response): void {
  expect(res.status).toBe(409);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    code: 'operation_id_conflict',
    status: 409,
    type: 'https://jms.dev/problems/operation_id_conflict',
  });
  expect(res.headers['idempotent-replayed']).toBeUndefined();
}

async function feedFor(
  key: string,
  jobId: string,
): Promise<{ action: string; job: { id: string } | null }[]> {
  await feedSettled(t);
  const entries = (await as(t, key).get('/api/v1/changes?limit=100').expect(200)).body.data as {
    action: string;
    job: { id: string } | null;
  }[];
  return entries.filter((e) => e.job?.id === jobId);
}

const shuffle = <T>(items: T[]): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
});
afterAll(() => t.close());

describe('a repeated operation_id with the same details', () => {
  it('replays the first status and body with Idempotent-Replayed: true, and saves nothing twice', async () => {
    const body = {
      operation_id: opId(),
      customer_name: 'Maria Alvarez',
      customer_phone: '(555) 201-3344',
      city: 'Springfield',
      assignee: 'Sam Okafor',
    };
    const start = await counts(co.id);
    const first = await createJob(co.writeKey, body).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const afterFirst = await counts(co.id);
    expect(afterFirst).toEqual({
      jobs: start.jobs + 1,
      contacts: start.contacts + 1,
      changes: start.changes + 1,
      undo: start.undo + 1,
      records: start.records + 1,
    });

    for (let i = 0; i < 3; i++) {
      const again = await createJob(co.writeKey, body);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      // Byte for byte: the stored answer, not a new rendering of the job.
      expect(again.text).toBe(first.text);
    }
    expect(await counts(co.id)).toEqual(afterFirst);
    expect((await feedFor(co.readKey, first.body.id)).map((e) => e.action)).toEqual(['job.created']);
    const jobs = (await as(t, co.readKey).get('/api/v1/jobs?q=Maria%20Alvarez').expect(200)).body.data as {
      id: string;
    }[];
    expect(jobs.map((j) => j.id)).toEqual([first.body.id]);
  });

  it('ignores the order of the keys in the body, and whitespace', async () => {
    const operationId = opId();
    const first = await createJob(co.writeKey, {
      operation_id: operationId,
      customer_name: 'Order Olga',
      city: 'Peoria',
      carrier: 'Allstate',
      claim_number: 'AL-1',
    }).expect(201);
    const before = await counts(co.id);
    const reordered = await createJob(co.writeKey, {
      claim_number: 'AL-1',
      carrier: 'Allstate',
      city: 'Peoria',
      customer_name: 'Order Olga',
      operation_id: operationId,
    }).expect(201);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.body).toEqual(first.body);
    const spaced = await as(t, co.writeKey)
      .post('/api/v1/jobs')
      .set('Content-Type', 'application/json')
      .send(
        `{\n  "city" : "Peoria",  "operation_id": "${operationId}",\n\t"carrier":"Allstate", "customer_name": "Order Olga", "claim_number": "AL-1"\n}`,
      )
      .expect(201);
    expect(spaced.headers['idempotent-replayed']).toBe('true');
    expect(spaced.body).toEqual(first.body);
    expect(await counts(co.id)).toEqual(before);
  });

  it('replays the answer as it was, even after the job changed since', async () => {
    const body = { operation_id: opId(), customer_name: 'Stored Stan', carrier: 'State Farm' };
    const first = await createJob(co.writeKey, body).expect(201);
    await t.db.transaction(async (trx) => {
      await new RecordedWrites(trx, co.id).update('jobs', first.body.id, { carrier: 'Travelers' });
    });
    expect(
      (await as(t, co.readKey).get(`/api/v1/jobs/${first.body.id}`).expect(200)).body.claim.carrier,
    ).toBe('Travelers');
    const again = await createJob(co.writeKey, body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.claim.carrier).toBe('State Farm');
    expect(again.body).toEqual(first.body);
  });

  it('replays the first answer although the write could not be made now, and leaves nothing of the attempt', async () => {
    // The last credit goes to the first estimate: a resend would now be refused 402 on its own.
    const poor = await createCompany(t, { credits: 1 });
    const jobId = (
      await createJob(poor.writeKey, { operation_id: opId(), customer_name: 'Last Credit Lena' }).expect(201)
    ).body.id;
    const body = { operation_id: opId(), scope_summary: 'Water heater leak' };
    const first = await as(t, poor.writeKey).post(`/api/v1/jobs/${jobId}/estimates`).send(body).expect(201);
    expect(first.body.credits).toEqual({ used: 1, remaining: 0 });
    const before = { ...(await counts(poor.id)), estimates: await count('estimates', poor.id) };
    const again = await as(t, poor.writeKey).post(`/api/v1/jobs/${jobId}/estimates`).send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect({ ...(await counts(poor.id)), estimates: await count('estimates', poor.id) }).toEqual(before);
    // And a write that could be made again (a job) is answered, not made twice.
    const job = { operation_id: opId(), customer_name: 'Twice Tomas' };
    const made = await createJob(poor.writeKey, job).expect(201);
    const resent = await createJob(poor.writeKey, job).expect(201);
    expect(resent.body.job_number).toBe(made.body.job_number);
    expect(await count('jobs', poor.id)).toBe(2);
  });

  it('is replayed for another key of the same company: the operation_id belongs to the company', async () => {
    const body = { operation_id: opId(), customer_name: 'Shared Shira' };
    const first = await createJob(co.writeKey, body).expect(201);
    const before = await counts(co.id);
    const fromColleague = await createJob(co.otherWriteKey, body).expect(201);
    expect(fromColleague.headers['idempotent-replayed']).toBe('true');
    expect(fromColleague.body).toEqual(first.body);
    expect(fromColleague.body.created_by.name).toBe('Avery Stone');
    expectConflict(await createJob(co.otherWriteKey, { ...body, customer_name: 'Shared Shira 2' }));
    expect(await counts(co.id)).toEqual(before);
  });
});

describe('a repeated operation_id with other details', () => {
  it('answers 409 operation_id_conflict and saves nothing, whatever differs', async () => {
    const operationId = opId();
    const original = { operation_id: operationId, customer_name: 'Tom Nguyen', city: 'Joliet' };
    const first = await createJob(co.writeKey, original).expect(201);
    const record = await t
      .db('idempotency_records')
      .where({ company_id: co.id, operation_id: operationId })
      .first();
    const before = await counts(co.id);

    const variants: Record<string, unknown>[] = [
      { ...original, customer_name: 'Tom Nguyen Jr' }, // another value
      { ...original, region: 'IL' }, // a field added
      { operation_id: operationId, customer_name: 'Tom Nguyen' }, // a field left out
      { ...original, city: 'joliet' }, // case matters in values
    ];
    for (const variant of variants) expectConflict(await createJob(co.writeKey, variant));
    // The same operation_id on another tool is other details too.
    expectConflict(await as(t, co.writeKey).post('/api/v1/undo').send({ operation_id: operationId }));

    expect(await counts(co.id)).toEqual(before);
    expect(
      await t.db('idempotency_records').where({ company_id: co.id, operation_id: operationId }).first(),
    ).toEqual(record);
    // The job is still there (the undo was not run) and the original still replays.
    await as(t, co.readKey).get(`/api/v1/jobs/${first.body.id}`).expect(200);
    const again = await createJob(co.writeKey, original).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('a write that failed', () => {
  it('is not remembered: the same operation_id can then succeed, and then it is taken', async () => {
    const operationId = opId();
    const before = await counts(co.id);
    const failed = await createJob(co.writeKey, {
      operation_id: operationId,
      customer_name: 'Retry Rosa',
      assignee: 'Nobody Atall',
    });
    expect(failed.status).toBe(422);
    expect(failed.body.code).toBe('unknown_teammate');
    expect(
      await t.db('idempotency_records').where({ company_id: co.id, operation_id: operationId }).first(),
    ).toBeUndefined();
    // The same failing request fails again on its own merits, it is not a replay.
    const failedAgain = await createJob(co.writeKey, {
      operation_id: operationId,
      customer_name: 'Retry Rosa',
      assignee: 'Nobody Atall',
    });
    expect(failedAgain.status).toBe(422);
    expect(failedAgain.headers['idempotent-replayed']).toBeUndefined();
    // A request that does not match the spec is not remembered either.
    expect((await createJob(co.writeKey, { operation_id: operationId, customer_email: 'nope' })).status).toBe(
      400,
    );
    expect(await counts(co.id)).toEqual(before);

    const ok = await createJob(co.writeKey, {
      operation_id: operationId,
      customer_name: 'Retry Rosa',
      assignee: 'Sam Okafor',
    }).expect(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
    expect(ok.body.assignees).toEqual([expect.objectContaining({ name: 'Sam Okafor' })]);
    expect((await counts(co.id)).jobs).toBe(before.jobs + 1);

    // From now on the operation_id is the successful one's.
    expectConflict(
      await createJob(co.writeKey, {
        operation_id: operationId,
        customer_name: 'Retry Rosa',
        assignee: 'Nobody Atall',
      }),
    );
    const replay = await createJob(co.writeKey, {
      operation_id: operationId,
      customer_name: 'Retry Rosa',
      assignee: 'Sam Okafor',
    }).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(ok.body);
  });

  it('a refused undo is not remembered either', async () => {
    const fresh = await createCompany(t);
    const operationId = opId();
    expect(
      (await as(t, fresh.writeKey).post('/api/v1/undo').send({ operation_id: operationId }).expect(409)).body
        .code,
    ).toBe('undo_not_possible');
    const job = await createJob(fresh.writeKey, { operation_id: opId(), customer_name: 'Later Lou' }).expect(
      201,
    );
    const undone = await as(t, fresh.writeKey)
      .post('/api/v1/undo')
      .send({ operation_id: operationId })
      .expect(200);
    expect(undone.headers['idempotent-replayed']).toBeUndefined();
    expect(undone.body.undone.tool).toBe('create_job');
    await as(t, fresh.readKey).get(`/api/v1/jobs/${job.body.id}`).expect(404);
  });
});

describe('operation_ids of different companies', () => {
  it('are independent: another company may use the same id, with other or the same details', async () => {
    const other = await createCompany(t);
    const operationId = opId();
    const mine = await createJob(co.writeKey, {
      operation_id: operationId,
      customer_name: 'Mine Mia',
    }).expect(201);
    const theirs = await createJob(other.writeKey, {
      operation_id: operationId,
      customer_name: 'Theirs Theo',
    }).expect(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.customer_name).toBe('Theirs Theo');

    // Each company replays its own answer, and conflicts only with its own.
    const mineAgain = await createJob(co.writeKey, {
      operation_id: operationId,
      customer_name: 'Mine Mia',
    }).expect(201);
    expect(mineAgain.body).toEqual(mine.body);
    const theirsAgain = await createJob(other.writeKey, {
      operation_id: operationId,
      customer_name: 'Theirs Theo',
    }).expect(201);
    expect(theirsAgain.headers['idempotent-replayed']).toBe('true');
    expect(theirsAgain.body).toEqual(theirs.body);
    expectConflict(await createJob(other.writeKey, { operation_id: operationId, customer_name: 'Mine Mia' }));

    // The very same request in a third company is a new job there, not a replay of ours.
    const third = await createCompany(t);
    const same = await createJob(third.writeKey, {
      operation_id: operationId,
      customer_name: 'Mine Mia',
    }).expect(201);
    expect(same.headers['idempotent-replayed']).toBeUndefined();
    expect(same.body.id).not.toBe(mine.body.id);
    expect(same.body.created_by.name).toBe('Avery Stone');
    expect(await count('jobs', third.id)).toBe(1);
    await as(t, third.readKey).get(`/api/v1/jobs/${mine.body.id}`).expect(404);
  });
});

describe('truly concurrent requests', () => {
  it('10 identical requests at once save exactly one job; one answer is new, nine are replays of it', async () => {
    const fresh = await createCompany(t);
    const body = {
      operation_id: opId(),
      customer_name: 'Concurrent Carla',
      claim_number: 'CC-1',
      assignee: 'Dana White',
    };
    const answers = await atOnce(
      t,
      Array.from({ length: 10 }, () => () => createJob(fresh.writeKey, body)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await counts(fresh.id)).toEqual({ jobs: 1, contacts: 1, changes: 1, undo: 1, records: 1 });
    expect(await count('job_assignees', fresh.id)).toBe(1);
    expect((await feedFor(fresh.readKey, answers[0].body.id)).map((e) => e.action)).toEqual(['job.created']);
  });

  it('identical requests at once from two keys of the company also save once', async () => {
    const fresh = await createCompany(t);
    const body = { operation_id: opId(), customer_name: 'Two Devices' };
    const answers = await atOnce(
      t,
      Array.from(
        { length: 8 },
        (_, i) => () => createJob(i % 2 ? fresh.writeKey : fresh.otherWriteKey, body),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(7);
    expect(await counts(fresh.id)).toEqual({ jobs: 1, contacts: 1, changes: 1, undo: 1, records: 1 });
  });

  it('requests with the same operation_id and different bodies at once: exactly one wins', async () => {
    const fresh = await createCompany(t);
    const operationId = opId();
    const bodies = ['Ann', 'Bob', 'Cy'].map((name) => ({ operation_id: operationId, customer_name: name }));
    // Three copies of each body, in random order.
    const requests = shuffle(bodies.flatMap((body) => [body, body, body]));
    const answers = await atOnce(
      t,
      requests.map((body) => () => createJob(fresh.writeKey, body)),
    );

    const won = answers.filter((a) => a.status === 201);
    const lost = answers.filter((a) => a.status !== 201);
    for (const answer of lost) expectConflict(answer);
    expect(won.length).toBeGreaterThanOrEqual(1);
    // All successes are the same job, of one body; the others of that body are its replays.
    expect(new Set(won.map((a) => a.text)).size).toBe(1);
    const winner = won[0].body.customer_name as string;
    const winnerIndexes = requests
      .map((body, i) => (body.customer_name === winner ? i : -1))
      .filter((i) => i >= 0);
    expect(winnerIndexes.map((i) => answers[i].status)).toEqual([201, 201, 201]);
    expect(won).toHaveLength(3);
    expect(lost).toHaveLength(6);
    expect(won.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(2);
    for (const [i, body] of requests.entries()) {
      if (body.customer_name !== winner) expect(answers[i].status).toBe(409);
    }
    expect(await counts(fresh.id)).toEqual({ jobs: 1, contacts: 1, changes: 1, undo: 1, records: 1 });
    const jobs = (await as(t, fresh.readKey).get('/api/v1/jobs').expect(200)).body.data as {
      customer_name: string;
    }[];
    expect(jobs.map((j) => j.customer_name)).toEqual([winner]);
  });

  it('a same request that ran alongside and then failed on what the first one changed gets the first answer', async () => {
    const fresh = await createCompany(t);
    const job = (
      await createJob(fresh.writeKey, { operation_id: opId(), customer_name: 'Cancel Once' }).expect(201)
    ).body as { id: string };
    const body = { operation_id: opId(), reason: 'Customer went with another company' };
    // Each copy after the first finds the job cancelled already (409 invalid_state on its own).
    const answers = await atOnce(
      t,
      Array.from(
        { length: 5 },
        () => () =>
          as(t, fresh.writeKey)
            .post(`/api/v1/jobs/${job.id}/cancel`)
            .send(body)
            .then((res) => res),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    expect((await feedFor(fresh.readKey, job.id)).map((e) => e.action)).toEqual([
      'job.created',
      'job.cancelled',
    ]);
    // A different request with its own operation_id is refused as before.
    const again = await as(t, fresh.writeKey)
      .post(`/api/v1/jobs/${job.id}/cancel`)
      .send({ operation_id: opId() });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'invalid_state' });
  });

  it('the same undo sent several times at once takes back exactly one action', async () => {
    const fresh = await createCompany(t);
    const names = ['Keep One', 'Keep Two', 'Undo Me'];
    for (const name of names)
      await createJob(fresh.writeKey, { operation_id: opId(), customer_name: name }).expect(201);
    const operationId = opId();
    const answers = await atOnce(
      t,
      Array.from(
        { length: 5 },
        () => () =>
          as(t, fresh.writeKey)
            .post('/api/v1/undo')
            .send({ operation_id: operationId })
            .then((res) => res),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    expect(answers[0].body.undone.summary).toMatch(/Undo Me$/);
    const jobs = (await as(t, fresh.readKey).get('/api/v1/jobs').expect(200)).body.data as {
      customer_name: string;
    }[];
    expect(jobs.map((j) => j.customer_name).sort()).toEqual(['Keep One', 'Keep Two']);
    const undone = await t
      .db('undo_actions')
      .where({ company_id: fresh.id })
      .whereNotNull('undone_at')
      .count<{ n: string | number }[]>('* as n');
    expect(Number(undone[0].n)).toBe(1);
  });
});
