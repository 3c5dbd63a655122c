/**
 * kill -9 of a node in the middle of building a packet whose download makes its estimate final:
 * after a restart the estimate is still a draft with no feed entry, and a whole download from the
 * new node finalises it. PostgreSQL only (a second process needs a server).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { jpegWith } from '../support/photo-files';
import { companyOnNode, startNode, stopNodes, type Node } from '../support/nodes';
import { withDatabase } from '../support/scaling/measure';

const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
jest.setTimeout(180_000);

/** POSTs the packet's PDF as a program does; resolves with the status, or null if the connection died. */
function downloadPacket(url: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'POST' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? null));
      res.on('error', () => resolve(null));
    });
    req.on('error', () => resolve(null));
    req.end();
  });
}

onPostgres('a node killed while it builds a packet', () => {
  it('leaves the estimate a draft; a whole download after the restart makes it final', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'jms-packet-crash-'));
    const env = { FILES_DIR: path.join(work, 'files'), TEMP_DIR: path.join(work, 'tmp'), RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_BURST: '100000' };
    try {
      await withDatabase(process.env.DATABASE_URL!, `jms_packet_crash_${process.pid}`, async (databaseUrl) => {
        let node: Node | undefined = await startNode({ ...env, DATABASE_URL: databaseUrl });
        try {
          const { key } = await companyOnNode(node, 'Packet Crash Co', 'Pat Packet');
          const api = (to: Node) => ({
            get: (p: string) => request(to.url).get(p).set('Authorization', `Bearer ${key}`),
            post: (p: string) => request(to.url).post(p).set('Authorization', `Bearer ${key}`),
          });
          const job = (await api(node).post('/api/v1/jobs').send({ operation_id: randomUUID(), customer_name: 'Crash Carla' }).expect(201)).body;
          const estimate = (await api(node).post(`/api/v1/jobs/${job.id}/estimates`).send({ operation_id: randomUUID(), label: 'Mitigation', line_items: [{ description: 'Extraction', unit: 'SF', quantity: 120, unit_price_cents: 123 }] }).expect(201)).body.estimate;
          const upload = api(node).post(`/api/v1/jobs/${job.id}/photos`).field('meta', JSON.stringify({ operation_id: randomUUID() }));
          for (let i = 0; i < 6; i++) upload.attach('photo', await jpegWith({ width: 1600 + i, height: 1200 }), { filename: `p${i}.jpg`, contentType: 'image/jpeg' });
          await upload.expect(201);
          const link = (await api(node).get(`/api/v1/jobs/${job.id}/export-pdf?documents=estimate&documents=photos`).expect(200)).body;
          const pdfPath = `${new URL(link.pdf_url).pathname}${new URL(link.pdf_url).search}`;

          // Killed once the node is gathering the packet's pictures (its packet-* folder exists):
          // the estimate has been read, the PDF is not yet made.
          const tempDir = path.join(env.TEMP_DIR, `p${node.child.pid}`);
          const building = () => existsSync(tempDir) && readdirSync(tempDir).some((name) => name.startsWith('packet-'));
          const download = downloadPacket(`${node.url}${pdfPath}`);
          const deadline = Date.now() + 60_000;
          while (!building() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
          expect(building()).toBe(true);
          await stopNodes([node], 'SIGKILL');
          expect(await download).toBeNull();

          node = await startNode({ ...env, DATABASE_URL: databaseUrl });
          expect((await api(node).get(`/api/v1/estimates/${estimate.id}`).expect(200)).body.status).toBe('draft');
          const feed = (await api(node).get('/api/v1/changes?limit=100').expect(200)).body.data as { action: string }[];
          expect(feed.map((entry) => entry.action)).toContain('estimate.created');
          expect(feed.filter((entry) => entry.action === 'estimate.finalized')).toHaveLength(0);

          expect(await downloadPacket(`${node.url}${pdfPath}`)).toBe(200);
          expect((await api(node).get(`/api/v1/estimates/${estimate.id}`).expect(200)).body.status).toBe('final');
        } finally {
          await stopNodes([node]);
        }
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
