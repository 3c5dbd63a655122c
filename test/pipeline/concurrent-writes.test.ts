/**
 * Two writes on the same parent (a job or an estimate) at the same moment, each with its own
 * operation_id: both are saved, neither answers 500, and neither loses what the other wrote.
 * Proven on PostgreSQL, where the requests really run side by side (CI runs this file there);
 * on PGlite's single connection a few pairs only check the assertions.
 */
import type { Response } from 'supertest';
import {
  as,
  companyDate,
  createCompany,
  opId,
  startApp,
  type TestApp,
  type TestCompany,
} from '../support/app';

const PAIRS = process.env.DATABASE_URL ? 50 : 3;
jest.setTimeout(300_000);

let t: TestApp;
let co: TestCompany;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t, { credits: 1000 });
});
afterAll(() => t.close());

const write = () => as(t, co.writeKey);
const read = () => as(t, co.readKey);

interface Job {
  id: string;
  job_number: number;
}

async function newJob(): Promise<Job> {
  return (
    await write().post('/api/v1/jobs').send({ operation_id: opId(), customer_name: 'Pat Pair' }).expect(201)
  ).body;
}

async function getJob(id: string) {
  return (await read().get(`/api/v1/jobs/${id}`).expect(200)).body;
}

interface Estimate {
  id: string;
  rooms: { id: string; name: string }[];
  unassigned_lines: { id: string; description: string }[];
}

async function newEstimate(rooms: string[], lines: string[]): Promise<Estimate> {
  const job = await newJob();
  const body = {
    operation_id: opId(),
    rooms: rooms.map((name) => ({ name, length: 10, width: 10, height: 8 })),
    line_items: lines.map((description) => ({
      description,
      unit: 'EA',
      quantity: 1,
      unit_price_cents: 1000,
    })),
  };
  return (await write().post(`/api/v1/jobs/${job.id}/estimates`).send(body).expect(201)).body.estimate;
}

async function getEstimate(id: string): Promise<Estimate & { totals: { subtotal_cents: number } }> {
  return (await read().get(`/api/v1/estimates/${id}`).expect(200)).body;
}

/**
 * Sends both requests of each pair at once. Returns what went wrong, pair by pair: the statuses
 * of answers that were not successes, and the pairs whose saved result lost one of the writes.
 */
async function runPairs<T>(
  setup: () => Promise<T>,
  pair: (parent: T) => [Promise<Response>, Promise<Response>],
  check: (parent: T) => Promise<void>,
): Promise<string[]> {
  const problems: string[] = [];
  let failedAnswers = 0;
  let lostWrites = 0;
  for (let i = 0; i < PAIRS; i++) {
    const parent = await setup();
    const answers = await Promise.all(pair(parent));
    for (const answer of answers.filter((a) => a.status >= 300)) {
      failedAnswers++;
      problems.push(`pair ${i}: ${answer.status} ${answer.body.code}`);
    }
    await check(parent).catch((error: Error) => {
      lostWrites++;
      problems.push(`pair ${i}: ${error.message.split('\n')[0]}`);
    });
  }
  if (problems.length)
    console.log(
      `${expect.getState().currentTestName}: in ${PAIRS} pairs, ${failedAnswers} failed answers, ${lostWrites} pairs lost a write`,
    );
  return problems;
}

describe('two writes on one job at the same moment', () => {
  it('add_contact: both people are on the job and it is found by either name', async () => {
    const problems = await runPairs(
      newJob,
      (job) => [
        write()
          .post(`/api/v1/jobs/${job.id}/contacts`)
          .send({ operation_id: opId(), name: 'Quinn Left', role: 'tenant' }),
        write()
          .post(`/api/v1/jobs/${job.id}/contacts`)
          .send({ operation_id: opId(), name: 'Rory Right', role: 'adjuster' }),
      ],
      async (job) => {
        expect((await getJob(job.id)).people.map((p: { name: string }) => p.name).sort()).toEqual([
          'Pat Pair',
          'Quinn Left',
          'Rory Right',
        ]);
        const search = await t.db('jobs').where({ id: job.id }).first('search_text');
        expect(search.search_text).toEqual(expect.stringContaining('quinn left'));
        expect(search.search_text).toEqual(expect.stringContaining('rory right'));
      },
    );
    expect(problems).toEqual([]);
  });

  it('update_contact of two people: both changes are kept, in the job and in its search', async () => {
    const problems = await runPairs(
      async () => {
        const job = await newJob();
        const other = (
          await write()
            .post(`/api/v1/jobs/${job.id}/contacts`)
            .send({ operation_id: opId(), name: 'Second Person' })
            .expect(200)
        ).body.contact;
        return { job, ids: [(await getJob(job.id)).people[0].id as string, other.id as string] };
      },
      ({ job, ids }) => [
        write()
          .patch(`/api/v1/jobs/${job.id}/contacts/${ids[0]}`)
          .send({ operation_id: opId(), phone: '217-555-0101' }),
        write()
          .patch(`/api/v1/jobs/${job.id}/contacts/${ids[1]}`)
          .send({ operation_id: opId(), phone: '217-555-0202' }),
      ],
      async ({ job }) => {
        expect((await getJob(job.id)).people.map((p: { phone: string }) => p.phone).sort()).toEqual([
          '217-555-0101',
          '217-555-0202',
        ]);
        const search = await t.db('jobs').where({ id: job.id }).first('search_digits');
        expect(search.search_digits.split(' ').sort()).toEqual(['2175550101', '2175550202']);
      },
    );
    expect(problems).toEqual([]);
  });

  it('assign_job and unassign_job of two teammates', async () => {
    const assigned = await runPairs(
      newJob,
      (job) => [
        write()
          .post(`/api/v1/jobs/${job.id}/assignees`)
          .send({ operation_id: opId(), teammate: 'Sam Okafor' }),
        write()
          .post(`/api/v1/jobs/${job.id}/assignees`)
          .send({ operation_id: opId(), teammate: 'Dana White' }),
      ],
      async (job) =>
        expect((await getJob(job.id)).assignees.map((a: { name: string }) => a.name).sort()).toEqual([
          'Dana White',
          'Sam Okafor',
        ]),
    );
    const unassigned = await runPairs(
      async () => {
        const job = await newJob();
        for (const teammate of ['Sam Okafor', 'Dana White'])
          await write()
            .post(`/api/v1/jobs/${job.id}/assignees`)
            .send({ operation_id: opId(), teammate })
            .expect(200);
        return job;
      },
      (job) => [
        write().delete(`/api/v1/jobs/${job.id}/assignees/Sam%20Okafor?operation_id=${opId()}`),
        write().delete(`/api/v1/jobs/${job.id}/assignees/Dana%20White?operation_id=${opId()}`),
      ],
      async (job) => expect((await getJob(job.id)).assignees).toEqual([]),
    );
    expect([...assigned, ...unassigned]).toEqual([]);
  });

  it('add_note twice, and retract_note of two notes', async () => {
    const added = await runPairs(
      newJob,
      (job) => [
        write().post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: 'first' }),
        write().post(`/api/v1/jobs/${job.id}/notes`).send({ operation_id: opId(), text: 'second' }),
      ],
      async (job) =>
        expect((await getJob(job.id)).recent_notes.map((n: { text: string }) => n.text).sort()).toEqual([
          'first',
          'second',
        ]),
    );
    const retracted = await runPairs(
      async () => {
        const job = await newJob();
        const ids: string[] = [];
        for (const text of ['one', 'two'])
          ids.push(
            (
              await write()
                .post(`/api/v1/jobs/${job.id}/notes`)
                .send({ operation_id: opId(), text })
                .expect(201)
            ).body.id,
          );
        return { job, ids };
      },
      ({ job, ids }) => [
        write().delete(`/api/v1/jobs/${job.id}/notes/${ids[0]}?operation_id=${opId()}`),
        write().delete(`/api/v1/jobs/${job.id}/notes/${ids[1]}?operation_id=${opId()}`),
      ],
      async ({ job }) => expect((await getJob(job.id)).recent_notes).toEqual([]),
    );
    expect([...added, ...retracted]).toEqual([]);
  });

  it('correct_note twice on one note: one text is current, the other and the original are in its history', async () => {
    const problems = await runPairs(
      async () => {
        const job = await newJob();
        return {
          job,
          noteId: (
            await write()
              .post(`/api/v1/jobs/${job.id}/notes`)
              .send({ operation_id: opId(), text: 'original' })
              .expect(201)
          ).body.id as string,
        };
      },
      ({ job, noteId }) => [
        write().patch(`/api/v1/jobs/${job.id}/notes/${noteId}`).send({ operation_id: opId(), text: 'left' }),
        write().patch(`/api/v1/jobs/${job.id}/notes/${noteId}`).send({ operation_id: opId(), text: 'right' }),
      ],
      async ({ noteId }) => {
        const note = await t.db('notes').where({ id: noteId }).first('text');
        const history = await t
          .db('note_versions')
          .where({ note_id: noteId })
          .orderBy('replaced_at')
          .pluck('text');
        expect(history[0]).toBe('original');
        expect([...history.slice(1), note.text].sort()).toEqual(['left', 'right']);
      },
    );
    expect(problems).toEqual([]);
  });

  it('update_job_overview of two fields: both are kept', async () => {
    const problems = await runPairs(
      newJob,
      (job) => [
        write()
          .patch(`/api/v1/jobs/${job.id}/overview`)
          .send({ operation_id: opId(), claim_number: 'CLM-77' }),
        write()
          .patch(`/api/v1/jobs/${job.id}/overview`)
          .send({ operation_id: opId(), carrier: 'Acme Mutual' }),
      ],
      async (job) =>
        expect(await getJob(job.id)).toMatchObject({
          claim: { claim_number: 'CLM-77', carrier: 'Acme Mutual' },
        }),
    );
    expect(problems).toEqual([]);
  });

  it('create_estimate twice on one job: two estimates, two credits', async () => {
    const problems = await runPairs(
      newJob,
      (job) => [
        write().post(`/api/v1/jobs/${job.id}/estimates`).send({ operation_id: opId(), scope_summary: 'one' }),
        write().post(`/api/v1/jobs/${job.id}/estimates`).send({ operation_id: opId(), scope_summary: 'two' }),
      ],
      async (job) => expect((await getJob(job.id)).estimates).toHaveLength(2),
    );
    expect(problems).toEqual([]);
  });
});

describe('two writes on one estimate at the same moment', () => {
  it('add_rooms and add_line_items: both are in the estimate and its totals', async () => {
    const rooms = await runPairs(
      () => newEstimate([], []),
      (estimate) => [
        write()
          .post(`/api/v1/estimates/${estimate.id}/rooms`)
          .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }] }),
        write()
          .post(`/api/v1/estimates/${estimate.id}/rooms`)
          .send({ operation_id: opId(), rooms: [{ name: 'Hall' }] }),
      ],
      async (estimate) =>
        expect((await getEstimate(estimate.id)).rooms.map((r) => r.name).sort()).toEqual(['Hall', 'Kitchen']),
    );
    const lines = await runPairs(
      () => newEstimate([], []),
      (estimate) => [
        write()
          .post(`/api/v1/estimates/${estimate.id}/line-items`)
          .send({
            operation_id: opId(),
            line_items: [{ description: 'Left', unit: 'EA', quantity: 1, unit_price_cents: 1000 }],
          }),
        write()
          .post(`/api/v1/estimates/${estimate.id}/line-items`)
          .send({
            operation_id: opId(),
            line_items: [{ description: 'Right', unit: 'EA', quantity: 2, unit_price_cents: 1000 }],
          }),
      ],
      async (estimate) => {
        const saved = await getEstimate(estimate.id);
        expect(saved.unassigned_lines.map((l) => l.description).sort()).toEqual(['Left', 'Right']);
        expect(saved.totals.subtotal_cents).toBe(3000);
      },
    );
    expect([...rooms, ...lines]).toEqual([]);
  });

  it('update_room, update_line_item and remove_line_item of two rooms or lines', async () => {
    const updatedRooms = await runPairs(
      () => newEstimate(['Kitchen', 'Hall'], []),
      (estimate) => [
        write()
          .patch(`/api/v1/estimates/${estimate.id}/rooms/${estimate.rooms[0].id}`)
          .send({ operation_id: opId(), drying_days: 3 }),
        write()
          .patch(`/api/v1/estimates/${estimate.id}/rooms/${estimate.rooms[1].id}`)
          .send({ operation_id: opId(), drying_days: 4 }),
      ],
      async (estimate) => {
        const saved = (await getEstimate(estimate.id)) as unknown as { rooms: { drying_days: number }[] };
        expect(saved.rooms.map((r) => r.drying_days)).toEqual([3, 4]);
      },
    );
    const updatedLines = await runPairs(
      () => newEstimate([], ['Left', 'Right']),
      (estimate) => [
        write()
          .patch(`/api/v1/estimates/${estimate.id}/line-items/${estimate.unassigned_lines[0].id}`)
          .send({ operation_id: opId(), quantity: 3 }),
        write()
          .patch(`/api/v1/estimates/${estimate.id}/line-items/${estimate.unassigned_lines[1].id}`)
          .send({ operation_id: opId(), quantity: 4 }),
      ],
      async (estimate) => expect((await getEstimate(estimate.id)).totals.subtotal_cents).toBe(7000),
    );
    const removed = await runPairs(
      () => newEstimate([], ['Left', 'Right']),
      (estimate) => [
        write().delete(
          `/api/v1/estimates/${estimate.id}/line-items/${estimate.unassigned_lines[0].id}?operation_id=${opId()}`,
        ),
        write().delete(
          `/api/v1/estimates/${estimate.id}/line-items/${estimate.unassigned_lines[1].id}?operation_id=${opId()}`,
        ),
      ],
      async (estimate) => expect((await getEstimate(estimate.id)).unassigned_lines).toEqual([]),
    );
    expect([...updatedRooms, ...updatedLines, ...removed]).toEqual([]);
  });
});

describe('two drying-log writes on one job at the same moment', () => {
  // Day 1 is ten days ago: no reading may be after today.
  const dayOne = () => companyDate(co, -10);
  const readings = (job: Job, area: string, day: number) =>
    write()
      .post(`/api/v1/jobs/${job.id}/drying-log/readings`)
      .send({
        operation_id: opId(),
        date: companyDate(co, day - 11),
        area,
        readings: [
          { metric: 'rh_pct', value: 40 },
          { metric: 'drywall', value: 20 },
        ],
      });
  const dryingLog = async (job: Job) =>
    (await read().get(`/api/v1/jobs/${job.id}/drying-log?detail=readings`).expect(200)).body;
  const credits = async () =>
    (await read().get('/api/v1/context').expect(200)).body.credits.remaining as number;
  const newLog = async (): Promise<Job> => {
    const job = await newJob();
    await write()
      .post(`/api/v1/jobs/${job.id}/drying-log`)
      .send({ operation_id: opId(), rooms: [{ name: 'Kitchen' }, { name: 'Hall' }], start_date: dayOne() })
      .expect(201);
    return job;
  };

  it('add_drying_readings on a job with no log: one log is started, with one estimate and one credit, and both readings are in it', async () => {
    let creditsBefore = 0;
    const problems = await runPairs(
      async () => {
        creditsBefore = await credits();
        return newJob();
      },
      // The same date: whichever starts the log starts it on that day.
      (job) => [readings(job, 'Kitchen', 1), readings(job, 'Hall', 1)],
      async (job) => {
        const log = await dryingLog(job);
        expect({
          areas: log.areas.map((a: { name: string }) => a.name).sort(),
          readings: log.reading_count,
          planned: log.planned_days,
        }).toEqual({ areas: ['Hall', 'Kitchen'], readings: 4, planned: 3 });
        expect((await getJob(job.id)).estimates).toHaveLength(1);
        expect(await credits()).toBe(creditsBefore - 1);
      },
    );
    expect(problems).toEqual([]);
  });

  it('add_drying_note twice on a job with no log, and readings past the plan in two areas', async () => {
    const notes = await runPairs(
      newJob,
      (job) => [
        write()
          .post(`/api/v1/jobs/${job.id}/drying-log/notes`)
          .send({ operation_id: opId(), text: 'left', area: 'Kitchen' }),
        write()
          .post(`/api/v1/jobs/${job.id}/drying-log/notes`)
          .send({ operation_id: opId(), text: 'right', area: 'Bath' }),
      ],
      async (job) =>
        expect((await dryingLog(job)).notes.map((n: { text: string }) => n.text).sort()).toEqual([
          'left',
          'right',
        ]),
    );
    const extended = await runPairs(
      newLog,
      (job) => [readings(job, 'Kitchen', 5), readings(job, 'Attic', 7)],
      async (job) => {
        const log = await dryingLog(job);
        expect({ planned: log.planned_days, areas: log.areas.map((a: { name: string }) => a.name) }).toEqual({
          planned: 7,
          areas: expect.arrayContaining(['Kitchen', 'Hall', 'Attic']),
        });
        const estimate = await getEstimate(log.estimate_id);
        expect(
          (estimate as unknown as { rooms: { name: string; drying_days: number }[] }).rooms.map((r) => [
            r.name,
            r.drying_days,
          ]),
        ).toEqual(
          expect.arrayContaining([
            ['Attic', 7],
            ['Kitchen', 7],
          ]),
        );
      },
    );
    expect([...notes, ...extended]).toEqual([]);
  });

  it('skip_drying_day and update_drying_settings of two areas: both are kept, on the log and the estimate', async () => {
    const skipped = await runPairs(
      newLog,
      (job) => [
        write()
          .post(`/api/v1/jobs/${job.id}/drying-log/skip-day`)
          .send({ operation_id: opId(), day: 2, area: 'Kitchen' }),
        write()
          .post(`/api/v1/jobs/${job.id}/drying-log/skip-day`)
          .send({ operation_id: opId(), day: 2, area: 'Hall' }),
      ],
      async (job) =>
        expect((await dryingLog(job)).days[1]).toMatchObject({
          monitored: false,
          skipped_areas: ['Kitchen', 'Hall'],
        }),
    );
    const settings = await runPairs(
      newLog,
      (job) => [
        write()
          .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
          .send({ operation_id: opId(), area: 'Kitchen', planned_days: 5 }),
        write()
          .patch(`/api/v1/jobs/${job.id}/drying-log/settings`)
          .send({ operation_id: opId(), area: 'Hall', planned_days: 6 }),
      ],
      async (job) => {
        const log = await dryingLog(job);
        expect(log.areas.map((a: { planned_days: number }) => a.planned_days)).toEqual([5, 6]);
        const estimate = (await getEstimate(log.estimate_id)) as unknown as {
          rooms: { drying_days: number }[];
        };
        expect(estimate.rooms.map((r) => r.drying_days)).toEqual([5, 6]);
      },
    );
    expect([...skipped, ...settings]).toEqual([]);
  });

  it('create_drying_log twice: one log; the other answers 409 invalid_state, never 500', async () => {
    for (let i = 0; i < PAIRS; i++) {
      const job = await newJob();
      const answers = await Promise.all(
        ['Kitchen', 'Hall'].map((name) =>
          write()
            .post(`/api/v1/jobs/${job.id}/drying-log`)
            .send({ operation_id: opId(), rooms: [{ name }] }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)!.body.code).toBe('invalid_state');
    }
  });
});
