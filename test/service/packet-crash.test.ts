/**
 * kill -9 of a node in the middle of building a packet whose download makes its estimate final:
 * another node builds it without being asked again, within PACKET_BUILD_SECONDS (here 10 s) and
 * the queue's maintenance; the estimate stays a draft with no feed entry until the whole file is
 * downloaded from that node. One sweep then leaves exactly the packet files builds name, and a
 * build nobody asked for in a day goes with its file. PostgreSQL only (a second process needs a
 * server).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { pino } from 'pino';
import request from 'supertest';
import { openFileStore } from '../../src/infrastructure/files/open-store';
import { loadConfig } from '../../src/platform/config';
import { sweepStorage } from '../../src/node-services';
import { jpegWith } from '../support/photo-files';
import { companyOnNode, startNode, stopNodes, type Node } from '../support/nodes';
import { withDatabase } from '../support/scaling/measure';
import { describeOnPostgres } from '../support/databases';

jest.setTimeout(180_000);

interface Build {
  id: string;
  state: string;
  delivered: boolean;
  status_url: string;
  download_url: string | null;
}

/** The build a POST of the packet link queued. */
async function askForPacket(url: string): Promise<Build> {
  const res = await fetch(url, { method: 'POST' });
  expect(res.status).toBe(202);
  return (await res.json()) as Build;
}

describeOnPostgres('a node killed while it builds a packet', () => {
  it('another node builds it unasked; the estimate stays a draft until the file is downloaded whole', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'jms-packet-crash-'));
    const env = {
      FILES_DIR: path.join(work, 'files'),
      TEMP_DIR: path.join(work, 'tmp'),
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_BURST: '100000',
      PACKET_BUILD_SECONDS: '10',
      QUEUE_MAINTENANCE_SECONDS: '2',
    };
    try {
      await withDatabase(
        process.env.DATABASE_URL!,
        `jms_packet_crash_${process.pid}`,
        async (databaseUrl) => {
          let node: Node | undefined = await startNode({ ...env, DATABASE_URL: databaseUrl });
          try {
            const { key, id: companyId } = await companyOnNode(node, 'Packet Crash Co', 'Pat Packet');
            const api = (to: Node) => ({
              get: (p: string) => request(to.url).get(p).set('Authorization', `Bearer ${key}`),
              post: (p: string) => request(to.url).post(p).set('Authorization', `Bearer ${key}`),
            });
            const job = (
              await api(node)
                .post('/api/v1/jobs')
                .send({ operation_id: randomUUID(), customer_name: 'Crash Carla' })
                .expect(201)
            ).body;
            const estimate = (
              await api(node)
                .post(`/api/v1/jobs/${job.id}/estimates`)
                .send({
                  operation_id: randomUUID(),
                  label: 'Mitigation',
                  line_items: [
                    { description: 'Extraction', unit: 'SF', quantity: 120, unit_price_cents: 123 },
                  ],
                })
                .expect(201)
            ).body.estimate;
            const upload = api(node)
              .post(`/api/v1/jobs/${job.id}/photos`)
              .field('meta', JSON.stringify({ operation_id: randomUUID() }));
            for (let i = 0; i < 6; i++)
              upload.attach('photo', await jpegWith({ width: 1600 + i, height: 1200 }), {
                filename: `p${i}.jpg`,
                contentType: 'image/jpeg',
              });
            await upload.expect(201);
            const link = (
              await api(node)
                .get(`/api/v1/jobs/${job.id}/export-pdf?documents=estimate&documents=photos`)
                .expect(200)
            ).body;
            const onNode = (to: Node, url: string) =>
              `${to.url}${new URL(url).pathname}${new URL(url).search}`;

            // Killed once the node is gathering the packet's pictures (its packet-* folder exists):
            // the estimate has been read, the PDF is not yet made.
            const tempDir = path.join(env.TEMP_DIR, `p${node.child.pid}`);
            const building = () =>
              existsSync(tempDir) && readdirSync(tempDir).some((name) => name.startsWith('packet-'));
            const asked = await askForPacket(onNode(node, link.pdf_url));
            const deadline = Date.now() + 60_000;
            while (!building() && Date.now() < deadline)
              await new Promise((resolve) => setTimeout(resolve, 2));
            expect(building()).toBe(true);
            await stopNodes([node], 'SIGKILL');
            const killedAt = Date.now();

            node = await startNode({ ...env, DATABASE_URL: databaseUrl });
            // The dead node's temporary files (the packet's copied pictures) went when the new one started.
            expect(existsSync(tempDir)).toBe(false);
            expect((await api(node).get(`/api/v1/estimates/${estimate.id}`).expect(200)).body.status).toBe(
              'draft',
            );
            // Nobody asks again: the new node takes the build up once its job counts as dead.
            let build = asked;
            while (build.state !== 'ready' && Date.now() - killedAt < 60_000) {
              await new Promise((resolve) => setTimeout(resolve, 500));
              build = (await (await fetch(onNode(node, asked.status_url))).json()) as Build;
            }
            expect(build).toMatchObject({ id: asked.id, state: 'ready' });
            const tookUpWithin = Date.now() - killedAt;
            expect(tookUpWithin).toBeLessThan(40_000);
            const feed = (await api(node).get('/api/v1/changes?limit=100').expect(200)).body.data as {
              action: string;
            }[];
            expect(feed.map((entry) => entry.action)).toContain('estimate.created');
            expect(feed.filter((entry) => entry.action === 'estimate.finalized')).toHaveLength(0);
            expect((await api(node).get(`/api/v1/estimates/${estimate.id}`).expect(200)).body.status).toBe(
              'draft',
            );

            const file = await fetch(onNode(node, build.download_url!));
            expect(file.status).toBe(200);
            await file.arrayBuffer();
            // The service records the delivery (and finalises) as the last byte goes out.
            for (let tries = 0; !build.delivered && tries < 200; tries++) {
              await new Promise((resolve) => setTimeout(resolve, 50));
              build = (await (await fetch(onNode(node, asked.status_url))).json()) as Build;
            }
            expect(build.delivered).toBe(true);
            expect((await api(node).get(`/api/v1/estimates/${estimate.id}`).expect(200)).body.status).toBe(
              'final',
            );

            // One sweep leaves exactly the packet files builds name; 24 h after a build was last
            // asked for, it goes with its file.
            const db: Knex = knex({ client: 'pg', connection: databaseUrl });
            try {
              const config = loadConfig({ ...env, DATABASE_URL: databaseUrl });
              const files = openFileStore(config.files);
              const stray = path.join(work, 'stray.pdf');
              writeFileSync(stray, '%PDF-1.7 no build names this');
              await files.putFile(`packets/${companyId}/pkb_stray.pdf`, stray, 'application/pdf');
              const sweep = () => sweepStorage(db, { files }, config, pino({ level: 'silent' }));
              await sweep();
              const builds = (await db('packet_builds').select('file_key')) as { file_key: string }[];
              expect(builds).toHaveLength(1);
              expect(await files.list('packets/')).toEqual([builds[0].file_key]);
              await db('packet_builds').update({ last_used_at: db.raw("now() - interval '25 hours'") });
              await sweep();
              expect(await files.list('packets/')).toEqual([]);
              expect(await db('packet_builds').select('id')).toEqual([]);
            } finally {
              await db.destroy();
            }
          } finally {
            await stopNodes([node]);
          }
        },
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
