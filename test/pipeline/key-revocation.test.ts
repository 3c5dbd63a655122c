/**
 * Revoking or rotating a key is immediate: while the key is sending a steady stream of requests,
 * no request sent after the admin call has answered gets through, however the stream's look-ups
 * and the revocation interleave (a look-up in flight must not put the old key back in the cache).
 */
import { ADMIN_TOKEN, createCompany, startApp, type TestApp } from '../support/app';

const ROUNDS = 50;
const STREAMS = 4;

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

const admin = (req: ReturnType<TestApp['http']['get']>) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);

interface Sent {
  sentAt: number;
  status: number;
}

/** Requests with `key`, STREAMS at a time, until `stop` resolves. */
async function stream(key: string, stop: Promise<void>): Promise<Sent[]> {
  const sent: Sent[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      while (!stopped) {
        const sentAt = performance.now();
        const res = await t.http.get('/api/v1/context').set('Authorization', `Bearer ${key}`);
        sent.push({ sentAt, status: res.status });
      }
    }),
  );
  return sent;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

it(`in ${ROUNDS} revocations and rotations during a stream of requests, none sent after the answer succeeds`, async () => {
  const co = await createCompany(t);
  const late: Sent[] = [];
  let succeededBefore = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const created = await admin(t.http.post(`/admin/v1/companies/${co.id}/keys`))
      .send({ person_id: co.people[0].id, scope: 'read' })
      .expect(201);
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const requests = stream(created.body.key, stopped);
    await pause(5 + (round % 7) * 3);
    const rotate = round % 2 === 1;
    await (rotate
      ? admin(t.http.post(`/admin/v1/keys/${created.body.id}/rotate`))
          .send()
          .expect(200)
      : admin(t.http.delete(`/admin/v1/keys/${created.body.id}`)).expect(204));
    const answeredAt = performance.now();
    await pause(20);
    stop();
    const sent = await requests;
    succeededBefore += sent.filter((s) => s.sentAt < answeredAt && s.status === 200).length;
    late.push(...sent.filter((s) => s.sentAt > answeredAt && s.status !== 401));
  }
  // The stream really ran with the key before each revocation.
  expect(succeededBefore).toBeGreaterThan(ROUNDS);
  expect(late).toEqual([]);
});
