/**
 * kill -9 of a node in the middle of a 40-photo upload: after a restart and one sweep, the file
 * store holds exactly what the rows say, and the temporary directory holds nothing of the dead
 * process. On a database of its own (the sweep looks at every row of the database), PostgreSQL
 * only (a second process needs a server).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import knex, { type Knex } from 'knex';
import { pino } from 'pino';
import request from 'supertest';
import { openFileStore } from '../../src/infrastructure/files/open-store';
import { loadConfig } from '../../src/platform/config';
import { sweepStorage } from '../../src/node-services';
import { storageKey } from '../../src/domain/media/storage-keys';
import { jpegWith } from '../support/photo-files';
import { companyOnNode, startNode, stopNodes, type Node } from '../support/nodes';
import { withDatabase } from '../support/scaling/measure';
import { describeOnPostgres } from '../support/databases';

jest.setTimeout(180_000);

/** A multipart upload of `photos`, its body sent whole; resolves when the node has it all (or the connection dies). */
function sendUpload(url: string, key: string, jobId: string, photos: Buffer[]): Promise<void> {
  const boundary = `b${randomUUID()}`;
  const parts: Buffer[] = [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${JSON.stringify({ operation_id: randomUUID() })}\r\n`,
    ),
  ];
  for (const [i, photo] of photos.entries()) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p${i}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      ),
      photo,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return new Promise((resolve) => {
    const req = http.request(`${url}/api/v1/jobs/${jobId}/photos`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
    });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.end(Buffer.concat(parts), () => setTimeout(resolve, 300));
  });
}

describeOnPostgres('a node killed mid-upload', () => {
  it('leaves, after a restart and one sweep, exactly the objects its rows name, and no temporary files', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'jms-crash-'));
    const env = {
      FILES_DIR: path.join(work, 'files'),
      TEMP_DIR: path.join(work, 'tmp'),
      MEDIA_WORKERS: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_BURST: '100000',
    };
    try {
      await withDatabase(process.env.DATABASE_URL!, `jms_crash_${process.pid}`, async (databaseUrl) => {
        let node: Node | undefined = await startNode({ ...env, DATABASE_URL: databaseUrl });
        try {
          const co = await companyOnNode(node, 'Crash Co', 'Kim Kill');
          const { key } = co;
          const job = (
            await request(node.url)
              .post('/api/v1/jobs')
              .set('Authorization', `Bearer ${key}`)
              .send({ operation_id: randomUUID(), customer_name: 'Crash Carla' })
              .expect(201)
          ).body;
          const photos = await Promise.all(
            Array.from({ length: 40 }, (_, i) => jpegWith({ width: 1600 + i, height: 1200 })),
          );

          // Sent whole, then killed once the node has finished storing its first photo (a row with
          // stored_at): an object alone in the store may still be a temporary file or unfinished.
          const db: Knex = knex({ client: 'pg', connection: databaseUrl });
          void sendUpload(node.url, key, job.id, photos);
          const oneStored = async () =>
            (await db('stored_files').where({ company_id: co.id }).whereNotNull('stored_at').first()) !==
            undefined;
          const deadline = Date.now() + 60_000;
          while (!(await oneStored()) && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 10));
          const deadPid = node.child.pid!;
          await stopNodes([node], 'SIGKILL');
          node = await startNode({ ...env, DATABASE_URL: databaseUrl });
          expect(existsSync(path.join(env.TEMP_DIR, `p${deadPid}`))).toBe(false);

          try {
            const config = loadConfig({ ...env, DATABASE_URL: databaseUrl, UNFINISHED_FILES_MINUTES: '0' });
            const files = openFileStore(config.files);
            await sweepStorage(db, { files }, config, pino({ level: 'silent' }));
            const rows = (await db('stored_files')
              .where({ company_id: co.id })
              .select('sha256', 'stored_at', 'renditions')) as { sha256: string; stored_at: Date | null }[];
            expect(rows.every((row) => row.stored_at !== null)).toBe(true);
            const keys = (await files.list(`${co.id}/`)).sort();
            const named = new Set(
              rows.flatMap((row) =>
                ['original', 'web', 'thumbnail', 'shareable'].map((variant) =>
                  storageKey(co.id, row.sha256, variant as 'original'),
                ),
              ),
            );
            expect(keys.filter((k) => !named.has(k))).toEqual([]);
            for (const row of rows) expect(keys).toContain(storageKey(co.id, row.sha256, 'original'));
            // Nothing of the dead process's writes is left half-done in the store.
            expect(
              readdirSync(env.FILES_DIR, { recursive: true }).filter((name) => String(name).endsWith('~')),
            ).toEqual([]);
            // The kill came while files were being stored: some made it, the rest were swept.
            expect(keys.length).toBeGreaterThan(0);
          } finally {
            await db.destroy();
          }
        } finally {
          await stopNodes([node]);
        }
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
