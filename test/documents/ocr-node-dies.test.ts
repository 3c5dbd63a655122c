/**
 * OCR asked on node A, and A killed (SIGKILL) while it reads a page: the page's job is let go
 * within the stated bound (it counts as dead once it has run 1.5 × OCR_PAGE_TIMEOUT_SECONDS, and
 * the queue's maintenance notices within QUEUE_MAINTENANCE_SECONDS), and node B then finishes every
 * page without anyone asking again; a restart of A leaves nothing of the dead process in the
 * temporary directory. PostgreSQL only.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex from 'knex';
import request from 'supertest';
import { scannedPdf } from '../support/document-files';
import { companyOnNode, startNode, stopNodes, type Node } from '../support/nodes';
import { describeOnPostgres } from '../support/databases';

jest.setTimeout(180_000);

// A page's OCR took over 6 s beside the other test files on a loaded 2-core machine (CI runs of
// 2026-11-29 read page one as empty text): the timeout leaves room for that, not for a dead node.
const PAGE_TIMEOUT_S = 15;
/**
 * Dead after 1.5 × the page timeout, noticed within a second, and a few seconds' slack for the
 * polling. How long B then takes to read the pages depends on the machine's load, so it is given
 * room (FINISHED_MS) but no bound of its own.
 */
const LET_GO_MS = (1.5 * PAGE_TIMEOUT_S + 1 + 3) * 1000;
const FINISHED_MS = 120_000;

describeOnPostgres('OCR when its node dies', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'jms-ocr-nodes-'));
  const schema = `queue_n${randomUUID().slice(0, 8)}`;
  // Both nodes share the database, the queue and the file store, as behind a load balancer.
  const env = {
    FILES_DIR: path.join(work, 'files'),
    TEMP_DIR: path.join(work, 'tmp'),
    QUEUE_SCHEMA: schema,
    QUEUE_MAINTENANCE_SECONDS: '1',
    QUEUE_POLL_MS: '200',
    OCR_WORKERS: '1',
    OCR_PAGE_TIMEOUT_SECONDS: String(PAGE_TIMEOUT_S),
  };
  const db = knex({ client: 'pg', connection: process.env.DATABASE_URL });
  let a: Node | undefined;
  let b: Node | undefined;

  afterAll(async () => {
    await stopNodes([a, b]);
    await db.raw('drop schema if exists ?? cascade', [schema]);
    await db.destroy();
    rmSync(work, { recursive: true, force: true });
  });

  it('is finished by the other node without being asked again', async () => {
    a = await startNode(env);
    const co = await companyOnNode(a, 'OCR Nodes Co', 'Ola OCR');
    const { key } = co;
    const job = (
      await request(a.url)
        .post('/api/v1/jobs')
        .set('Authorization', `Bearer ${key}`)
        .send({ operation_id: randomUUID(), customer_name: 'Nodes Nell' })
        .expect(201)
    ).body;
    const scan = await scannedPdf([['NODE page one'], ['NODE page two'], ['NODE page three']]);
    const doc = (
      await request(a.url)
        .post(`/api/v1/jobs/${job.id}/documents`)
        .set('Authorization', `Bearer ${key}`)
        .field('meta', JSON.stringify({ operation_id: randomUUID() }))
        .attach('document', scan, 'scan.pdf')
        .expect(201)
    ).body.documents[0];
    const asked = await request(a.url)
      .get(`/api/v1/documents/${doc.id}?wait_seconds=0`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(asked.body.pending).toEqual([1, 2, 3]);

    // A has taken a page; B starts, then A dies with the page half read.
    const running = async () =>
      Number(
        (
          await db.raw(`select count(*)::int as n from ??.job where name = 'ocr.page' and state = 'active'`, [
            schema,
          ])
        ).rows[0].n,
      );
    while ((await running()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const taken = (
      await db.raw(`select id from ??.job where name = 'ocr.page' and state = 'active'`, [schema])
    ).rows.map((row: { id: string }) => row.id);
    b = await startNode(env);
    const deadPid = a.child.pid!;
    await stopNodes([a], 'SIGKILL');
    const killedAt = Date.now();

    const stillActive = async () =>
      Number(
        (
          await db.raw(
            `select count(*)::int as n from ??.job where id = any(?) and state = 'active' and retry_count = 0`,
            [schema, taken],
          )
        ).rows[0].n,
      );
    while ((await stillActive()) > 0 && Date.now() - killedAt < LET_GO_MS + 20_000)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await stillActive()).toBe(0);
    expect(Date.now() - killedAt).toBeLessThan(LET_GO_MS);

    const kept = async () =>
      Number(
        (
          await db('document_pages')
            .where({ company_id: co.id, sha256: doc.sha256 })
            .count<{ n: string }[]>('* as n')
        )[0].n,
      );
    while ((await kept()) < 3 && Date.now() - killedAt < FINISHED_MS)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await kept()).toBe(3);
    const read = await request(b.url)
      .get(`/api/v1/documents/${doc.id}?wait_seconds=0`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(read.body.pending).toEqual([]);
    expect(read.body.pages.map((p: { text: string }) => /NODE/i.test(p.text))).toEqual([true, true, true]);

    // A restarted: the dead process's temporary files (its copy of the scan, the page it
    // rendered) are gone.
    a = await startNode(env);
    expect(existsSync(path.join(env.TEMP_DIR, `p${deadPid}`))).toBe(false);
  });
});
