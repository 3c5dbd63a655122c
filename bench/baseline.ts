/**
 * The baseline: a bare Express 5 route answering the same get_job lookup with one query, with no
 * validation, authentication or logging. It tells what the service's own layers cost.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Knex } from 'knex';

export async function startBaseline(db: Knex, companyId: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.get('/api/v1/jobs/:id', async (req, res) => {
    const { rows } = await db.raw('select * from jobs where id = ? and company_id = ?', [req.params.id, companyId]);
    if (rows.length === 0) res.status(404).end();
    else res.json(rows[0]);
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
