/**
 * The baselines: bare Express 5 routes with no validation, authentication or logging. GET answers
 * the same get_job lookup with one query; POST writes what create_job must at the least (the job,
 * its customer, the link and a change entry) in one transaction. They tell what the service's own
 * layers cost, and what this machine can do at best.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Knex } from 'knex';
import { newId } from '../src/platform/ids';

export async function startBaseline(db: Knex, company: { id: string; personId: string; statusId: string }): Promise<{ url: string; close(): Promise<void> }> {
  const companyId = company.id;
  const app = express();
  app.use(express.json());
  app.post('/api/v1/jobs', async (req, res) => {
    const job = await db.transaction(async (trx) => {
      const [row] = await trx('jobs')
        .insert({ id: newId('job'), company_id: companyId, job_number: trx.raw(`nextval('"job_numbers_${companyId}"')`), title: req.body.customer_name, status_id: company.statusId, created_by: company.personId })
        .returning('*');
      const [contact] = await trx('contacts').insert({ id: newId('con'), company_id: companyId, name: req.body.customer_name }).returning('id');
      await trx('job_contacts').insert({ id: newId('jc'), company_id: companyId, job_id: row.id, contact_id: contact.id, role: 'customer' });
      await trx('change_entries').insert({ company_id: companyId, txid: trx.raw('pg_current_xact_id()::text::bigint'), kind: 'changes', action: 'job.created', summary: row.title, person_id: company.personId, via_key: true });
      return row;
    });
    res.status(201).json(job);
  });
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
